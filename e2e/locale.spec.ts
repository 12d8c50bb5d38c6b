import { expect, test } from "@playwright/test";

test.use({ locale: "de-DE" });

test("numbers are written in the reader's locale, the same on the server and in the browser", async ({ page }) => {
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));

  await page.goto("/");
  await expect(page.locator("html")).toHaveAttribute("data-locale", "de-DE");
  const noDirectives = page.getByTestId("runs-table").locator("tr", { hasText: "e2e No Directives" });
  // A client-rendered table cell: German decimal comma and a space before the percent sign.
  await expect(noDirectives).toContainText("100,0\u00a0%");

  await noDirectives.getByRole("link", { name: "e2e No Directives" }).click();
  const summary = page.getByTestId("run-summary");
  // A server-rendered card.
  await expect(summary.getByTitle(/Σ exploratory calls − Σ gold tables/)).toContainText("100,0\u00a0%");
  await page.waitForLoadState("networkidle");
  // A text that differs between the server's render and the browser's would be a hydration error.
  expect(errors.filter((e) => /hydrat|did not match/i.test(e))).toEqual([]);
});

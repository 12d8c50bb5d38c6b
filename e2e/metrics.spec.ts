import { expect, test } from "@playwright/test";
import { expectAccessible } from "./accessible";

test("a run shows its metrics against the gold tables and evaluates its execution accuracy", async ({ page }) => {
  await page.goto("/");
  const table = page.getByTestId("runs-table");
  const noDirectives = table.locator("tr", { hasText: "e2e No Directives" });
  // (3 + 3 + 4 + 2 exploratory − (1 + 1 + 2 + 2) gold) / 6 gold = 100%
  await expect(noDirectives).toContainText("100.0%");
  await noDirectives.getByRole("link", { name: "e2e No Directives" }).click();

  const summary = page.getByTestId("run-summary");
  await expect(summary).toContainText("Over-exploration");
  await expect(summary).toContainText("12 exploratory vs 6 gold");
  await expect(summary).toContainText("of 4 judged (recorded)");
  await expect(page.getByTestId("traces-table")).toContainText("4 / 2");

  await page.getByRole("button", { name: "Evaluate execution accuracy" }).click();
  await expect(page.getByTestId("evaluate-result")).toContainText("correct: 2");
  await expect(page.getByTestId("evaluate-result")).toContainText("wrong result: 2");
  await expect(summary).toContainText("of 4 judged (re-evaluated)");
  await expect(summary).toContainText("50.0%");
  // Question 1 counts sänger_im_konzert, question 22 joins sänger: both failed, both read a non-gold table.
  await expect(summary.getByTitle(/Traces that are not correct/)).toContainText(/^Failed with extra tables2failed/);
  await page.screenshot({ path: "e2e/screenshots/run-metrics.png", fullPage: true });
  await expectAccessible(page);

  await page.getByRole("link", { name: "spider-de" }).first().click();
  await expect(page.getByTestId("databases-table")).toContainText("concert_singer");
  await expect(page.getByTestId("questions-table")).toContainText("sänger");
  await page.screenshot({ path: "e2e/screenshots/datasets.png", fullPage: true });
  await expectAccessible(page);
});

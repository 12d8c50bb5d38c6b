import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { expectAccessible } from "./accessible";
import { E2E_SECRET } from "../playwright.config";

const ROOT = path.resolve(import.meta.dirname, "..");

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

test("rerun a failing demo question with the simulated provider and oracle directives, and see it beside the original", async ({
  page,
  request,
}) => {
  await page.goto("/?system=No+Directives&model=sim-hasty");
  const table = page.getByTestId("runs-table");
  await expect(table).toContainText("simulated");
  await table.getByRole("link", { name: "Simulated demo" }).click();
  await expect(page.getByText("Simulated demo: these traces were produced")).toBeVisible();
  await page.getByLabel("failing only").check();
  await expect(page).toHaveURL(/failing=true/);
  await page.getByTestId("traces-table").locator("tbody tr").first().getByRole("link").first().click();
  await expect(page).toHaveURL(/\/questions\//);
  const questionUrl = page.url();

  const panel = page.getByTestId("rerun-panel");
  await panel.getByLabel("Provider").selectOption("simulated");
  await panel.getByLabel("Directives").selectOption("oracle");
  await panel.getByRole("button", { name: "Rerun" }).click();
  await expect(panel.getByTestId("rerun-steps")).toContainText("list_tables");
  await expect(panel.getByTestId("rerun-steps")).toContainText("submit_final_query");
  await expect(panel.getByTestId("rerun-done")).toBeVisible();
  await expect(panel.getByTestId("rerun-status")).toContainText("submitted");
  await page.screenshot({ path: "e2e/screenshots/rerun.png", fullPage: true });
  await expectAccessible(page);

  await panel.getByRole("link", { name: "See it beside the original" }).click();
  const columns = page.getByTestId("side-by-side").locator(":scope > section");
  await expect(columns).toHaveCount(2);
  await expect(columns.nth(1)).toContainText("Reruns · Sophrosyne-Oracle · sim-careful");
  await expect(columns.nth(1)).toContainText("simulated");
  await page.screenshot({ path: "e2e/screenshots/rerun-side-by-side.png", fullPage: true });
  await expectAccessible(page);

  // The provider key the server holds appears in no page, no built client file and not in the store.
  for (const url of ["/settings", questionUrl, "/"])
    expect(await (await request.get(url)).text()).not.toContain(E2E_SECRET);
  await page.goto("/settings");
  await expectAccessible(page);
  await expect(page.getByTestId("providers-table")).toContainText("available");
  for (const file of filesUnder(path.join(ROOT, ".next", "static")))
    expect(readFileSync(file).includes(E2E_SECRET), file).toBe(false);
  for (const file of filesUnder(path.join(ROOT, "e2e", ".store")).filter((f) => /\.db(-wal)?$/.test(f)))
    expect(readFileSync(file).includes(E2E_SECRET), file).toBe(false);
});

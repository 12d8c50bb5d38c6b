import { expect, test } from "@playwright/test";
import { expectAccessible } from "./accessible";
import { showCharts } from "./charts";

test("overview matrix to a run, compare three runs, regressions only, side by side, every view restored from its URL", async ({
  page,
}) => {
  await page.goto("/experiments");
  const matrix = page.getByTestId("matrix-spider-de");
  await expect(matrix).toContainText("No Directives");
  await expect(matrix).toContainText("Sophrosyne-Oracle");
  // Charts render as SVG.
  for (const id of ["chart-over", "chart-failed-extra", "chart-ex", "chart-tokens", "chart-cost"]) {
    await expect(page.getByTestId(id).locator("svg.recharts-surface").first()).toBeVisible();
  }
  await expect(page.getByTestId("chart-over").locator(".recharts-bar-rectangle").first()).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/experiments.png", fullPage: true });
  await expectAccessible(page);
  await page.reload();
  await expect(page.getByTestId("matrix-spider-de")).toContainText("No Directives");

  // A system × model cell names the runs it pools and links to them.
  const oracleCell = matrix
    .locator("td")
    .filter({ has: page.getByTestId("matrix-cell") })
    .nth(2)
    .getByTestId("matrix-cell")
    .first();
  await expect(oracleCell.getByTestId("cell-runs")).toContainText("e2e Sophrosyne-Oracle");
  await oracleCell.getByTestId("cell-runs").getByRole("link").first().click();
  await expect(page.getByRole("heading", { name: "e2e Sophrosyne-Oracle" })).toBeVisible();
  await showCharts(page);
  await expect(page.getByTestId("run-charts").locator("svg.recharts-surface").first()).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/run-overview.png", fullPage: true });
  await expectAccessible(page);

  // Compare three runs.
  await page.goto("/compare");
  const picker = page.getByTestId("run-picker");
  for (const name of ["e2e No Directives", "e2e Sophrosyne ·", "e2e Sophrosyne-Oracle"])
    await picker.getByText(name).first().click();
  await picker.getByRole("button", { name: "Compare 3 runs" }).click();
  await expect(page).toHaveURL(/runs=.*,.*,.*&baseline=/);
  await expect(page.getByTestId("compare-alignment")).toContainText("4 (question, sample) pairs in every run");
  await expect(page.getByTestId("compare-alignment")).toContainText("Sophrosyne · gpt-4o: 2");
  const headline = page.getByTestId("compare-headline");
  await expect(headline).toContainText("2 fixed · 1 regressed");
  await expect(headline).toContainText("McNemar p = 1.000");
  await expect(page.getByTestId("compare-table").locator("tbody tr")).toHaveCount(4);

  await page.getByLabel("regressions only").check();
  await expect(page).toHaveURL(/show=regressions/);
  const rows = page.getByTestId("compare-table").locator("tbody tr");
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("23");
  await expect(rows.first().locator("[data-status='regressed']")).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/compare.png", fullPage: true });
  await expectAccessible(page);
  await page.reload();
  await expect(page.getByTestId("compare-table").locator("tbody tr")).toHaveCount(1);
  await expect(page.getByLabel("regressions only")).toBeChecked();

  // Side by side.
  await rows.first().getByRole("link", { name: "side by side" }).click();
  await expect(page).toHaveURL(/\/compare\/questions\/23\?runs=/);
  const columns = page.getByTestId("side-by-side").locator(":scope > section");
  await expect(columns).toHaveCount(3);
  await expect(page.getByTestId("side-by-side").getByTestId("timeline")).toHaveCount(3);
  await expect(page.getByTestId("side-by-side").getByTestId("table-strip")).toHaveCount(3);
  await page.screenshot({ path: "e2e/screenshots/side-by-side.png", fullPage: true });
  await expectAccessible(page);
  await page.reload();
  await expect(page.getByTestId("side-by-side").locator(":scope > section")).toHaveCount(3);
});

import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { storeContains, storeDir } from "./store";
import { expectAccessible } from "./accessible";
import { E2E_SECRET } from "../playwright.config";

const ROOT = path.resolve(import.meta.dirname, "..");

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = path.join(dir, f);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

test("rerun a failing demo question with the original's defaults, see its steps arrive and its verdict, then sweep the failing questions with oracle directives", async ({
  page,
  request,
}) => {
  test.setTimeout(120_000);
  await page.goto("/?system=No+Directives&model=sim-hasty");
  const table = page.getByTestId("runs-table");
  await expect(table).toContainText("simulated");
  await table.getByRole("link", { name: "Simulated demo" }).click();
  await expect(page.getByText("Simulated demo: these traces were produced")).toBeVisible();
  // It says which database the simulated policy ran on: the demo's own, generated one.
  await expect(page.getByText(/simulated policy on the generated demo database, not by a model/)).toBeVisible();
  const runUrl = page.url();
  await page.getByLabel("failing only").check();
  await expect(page).toHaveURL(/failing=true/);
  await page.getByTestId("traces-table").locator("tbody tr").first().getByRole("link").first().click();
  await expect(page).toHaveURL(/\/questions\//);
  const questionUrl = page.url();

  // The form starts from the original: its provider, model and directive variant.
  const panel = page.getByTestId("rerun-panel");
  await expect(panel.getByLabel("Provider")).toHaveValue("simulated");
  await expect(panel.getByLabel("Model")).toHaveValue("sim-hasty");
  await expect(panel.getByLabel("Directives")).toHaveValue("none");
  await panel.getByRole("button", { name: "Rerun" }).click();
  // Steps arrive one by one (the simulated model thinks METRON_SIM_STEP_DELAY_MS per step).
  const steps = panel.getByTestId("rerun-steps").locator("li");
  const seen = new Set<number>();
  await expect
    .poll(
      async () => {
        seen.add(await steps.count());
        return panel.getByTestId("rerun-done").isVisible();
      },
      { intervals: [50], timeout: 30_000 },
    )
    .toBe(true);
  expect([...seen].filter((n) => n > 0).length).toBeGreaterThanOrEqual(3);
  await expect(panel.getByTestId("rerun-steps")).toContainText("submit_final_query");
  // Evaluated at once: the verdict against the original, without pressing Evaluate.
  await expect(panel.getByTestId("rerun-verdict")).toContainText(/fixed|still wrong/);
  await expect(page.getByTestId("reruns-of-trace")).toContainText("Reruns");
  await expect(page.getByTestId("reruns-of-trace")).toContainText(/fixed|still wrong/);
  await page.screenshot({ path: "e2e/screenshots/rerun.png", fullPage: true });
  await expectAccessible(page);

  await panel.getByRole("link", { name: "See it beside the original" }).click();
  const columns = page.getByTestId("side-by-side").locator(":scope > section");
  await expect(columns).toHaveCount(2);
  await expect(columns.nth(1)).toContainText("Reruns · No Directives · sim-hasty");
  await expect(columns.nth(1)).toContainText("simulated");
  await page.screenshot({ path: "e2e/screenshots/rerun-side-by-side.png", fullPage: true });
  await expectAccessible(page);

  // Promoted, the rerun leaves the Reruns run for a run of its own, where it counts.
  await page.goto(questionUrl);
  await page.getByTestId("reruns-of-trace").getByRole("button", { name: "Promote" }).first().click();
  await expect(page.getByTestId("reruns-of-trace")).toContainText("Promoted reruns · No Directives · sim-hasty");

  // A sweep of the run's failing questions with oracle directives, from the run page.
  await page.goto(runUrl);
  const form = page.getByTestId("sweep-form");
  await form.locator("summary").click();
  await expect(form.getByLabel(/failing in this run/)).toBeChecked();
  await form.getByLabel("Directives").selectOption("oracle");
  await form.getByLabel("Concurrency").fill("4");
  await form.getByRole("button", { name: /Start sweep of \d+ questions/ }).click();
  await expect(page).toHaveURL(/\/sweeps\//);
  const progress = page.getByTestId("sweep-progress");
  await expect(progress.getByRole("progressbar")).toBeVisible();
  await expectAccessible(page);
  await expect(progress.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "100", { timeout: 90_000 });
  await expect(progress).toContainText("Sweep done");
  await expect(progress.getByTestId("sweep-outcomes")).toContainText("fixed");
  await page.screenshot({ path: "e2e/screenshots/sweep.png", fullPage: true });
  await progress.getByTestId("sweep-compare").click();
  await expect(page).toHaveURL(/\/compare\?runs=/);
  await expect(page.locator("main")).toContainText("Sophrosyne-Oracle");
  await expectAccessible(page);

  // The provider key the server holds appears in no page, no built client file and not in the store.
  for (const url of ["/settings", questionUrl, "/"])
    expect(await (await request.get(url)).text()).not.toContain(E2E_SECRET);
  await page.goto("/settings");
  await expectAccessible(page);
  await expect(page.getByTestId("providers-table")).toContainText("available");
  for (const file of filesUnder(path.join(ROOT, ".next", "static")))
    expect(readFileSync(file).includes(E2E_SECRET), file).toBe(false);
  const storeFiles = filesUnder(storeDir("main")).filter((f) => /\.db(-wal)?$/.test(f));
  expect(storeContains("main", E2E_SECRET, storeFiles)).toBe(false);
});

test("a sweep stopped by its budget looks stopped, not finished; its budget is raised from the page and it runs on", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.goto("/?system=Sophrosyne&model=sim-careful");
  await page.getByTestId("runs-table").getByRole("link", { name: "Simulated demo" }).click();
  const form = page.getByTestId("sweep-form");
  await form.locator("summary").click();
  await form.getByLabel("a list of ids").check();
  await form.getByLabel(/Question ids/).fill("1 2 3 4 5 6");
  await form.getByLabel("Concurrency").fill("1");
  await form.getByLabel("Max tokens").fill("1");
  await form.getByRole("button", { name: /Start sweep of \d+ questions/ }).click();
  await expect(page).toHaveURL(/\/sweeps\//);
  const progress = page.getByTestId("sweep-progress");
  await expect(progress).toContainText("Sweep stopped (stopped by budget)", { timeout: 60_000 });
  // The bar shows what ran; the jobs not run are a segment of their own, and the page says why.
  const ran = Number(await progress.getByRole("progressbar").getAttribute("aria-valuenow"));
  expect(ran).toBeLessThan(100);
  await expect(progress.getByTestId("sweep-counts")).toContainText(/ran · \d+ done, 0 failed, \d+ not run/);
  expect((await progress.getByTestId("sweep-not-run-bar").boundingBox())!.width).toBeGreaterThan(0);
  await expect(progress.getByTestId("sweep-stop-reason")).toContainText("budget was reached");
  await page.screenshot({ path: "e2e/screenshots/sweep-stopped.png", fullPage: true });
  await expectAccessible(page);
  // Raised from the page: it resumes and finishes.
  const raise = progress.getByRole("form", { name: "Raise the budget" });
  // Prefilled at twice what was spent (the limit of 1 was long passed).
  const spent = Number((await progress.textContent())!.match(/Tokens ([\d,]+)/)![1].replace(/,/g, ""));
  await expect(raise.getByLabel("Max tokens")).toHaveValue(String(2 * spent));
  await raise.getByLabel("Max tokens").fill("100000000");
  await raise.getByRole("button", { name: "Raise the budget and resume" }).click();
  await expect(progress).toContainText("Sweep done", { timeout: 90_000 });
  await expect(progress.getByRole("progressbar")).toHaveAttribute("aria-valuenow", "100");
});

test("cancelling a sweep asks first, saying how many jobs will not run", async ({ page }) => {
  await page.goto("/?system=Sophrosyne&model=sim-careful");
  await page.getByTestId("runs-table").getByRole("link", { name: "Simulated demo" }).click();
  const form = page.getByTestId("sweep-form");
  await form.locator("summary").click();
  await form.getByLabel(/the whole dataset/).check();
  await form.getByLabel("Concurrency").fill("1");
  await form.getByRole("button", { name: /Start sweep of \d+ questions/ }).click();
  await expect(page).toHaveURL(/\/sweeps\//);
  const progress = page.getByTestId("sweep-progress");
  const messages: string[] = [];
  // Dismissed, nothing happens; accepted, the sweep is cancelled.
  page.once("dialog", (d) => {
    messages.push(d.message());
    void d.dismiss();
  });
  await progress.getByRole("button", { name: "Cancel" }).click();
  await expect.poll(() => messages.length).toBe(1);
  expect(messages[0]).toMatch(/^Cancel this sweep\? \d+ of 42 jobs have not finished and will not run\.$/);
  await expect(progress).toContainText("Sweep running");
  page.once("dialog", (d) => void d.accept());
  await progress.getByRole("button", { name: "Cancel" }).click();
  await expect(progress).toContainText("Sweep cancelled");
  await expect(progress.getByTestId("sweep-stop-reason")).toContainText("the sweep was cancelled");
});

test("a sweep through a harness profile from the form: the server's profile chosen by name, its traces in a run of their own", async ({
  page,
}) => {
  test.setTimeout(120_000);
  await page.goto("/settings");
  await expect(page.getByTestId("harnesses-table")).toContainText("scripted-agent");
  await expect(page.getByTestId("harnesses-table")).toContainText("installed");
  await page.goto("/datasets?dataset=spider-de");
  const form = page.getByTestId("sweep-form");
  await form.locator("summary").click();
  await form.getByLabel("a list of ids").check();
  await form.getByLabel(/Question ids/).fill("0 1");
  await form.getByLabel("Agent").selectOption("scripted-agent");
  await expect(form.getByTestId("sweep-harness-note")).toBeVisible();
  await form.getByRole("button", { name: /Start sweep of 2 questions/ }).click();
  await expect(page).toHaveURL(/\/sweeps\//);
  const progress = page.getByTestId("sweep-progress");
  await expect(progress.getByTestId("sweep-harness")).toContainText("harness scripted-agent (command");
  await expect(progress).toContainText("Sweep done", { timeout: 90_000 });
  await expect(progress.getByTestId("sweep-counts")).toContainText("2 done, 0 failed");
  await page.screenshot({ path: "e2e/screenshots/sweep-harness.png", fullPage: true });
  await progress.getByRole("link", { name: "Open the sweep's run" }).click();
  await expect(page.getByTestId("traces-table").locator("tbody tr")).toHaveCount(2);
  await expectAccessible(page);

  // The grid: the same two questions under every directive variant, one run each, one saved experiment.
  await page.goto("/datasets?dataset=spider-de");
  await form.locator("summary").click();
  await form.getByLabel("a list of ids").check();
  await form.getByLabel(/Question ids/).fill("0 1");
  await form.getByLabel("Agent").selectOption("scripted-agent");
  await form.getByLabel(/every directive variant/).check();
  await form.getByRole("button", { name: /Start sweep of 2 questions × 3 variants/ }).click();
  await expect(page).toHaveURL(/\/experiments\?experiment=/);
  const matrix = page.getByTestId("matrix-spider-de");
  await expect(async () => {
    await page.reload();
    await expect(matrix.getByTestId("matrix-cell")).toHaveCount(3);
    await expect(matrix).not.toContainText("no run");
    for (const cell of await matrix.getByTestId("cell-n").all()) await expect(cell).toHaveText("n = 2 questions");
  }).toPass({ timeout: 90_000 });
  await page.screenshot({ path: "e2e/screenshots/sweep-grid.png", fullPage: true });
});

import path from "node:path";
import { expect, test } from "@playwright/test";
import { queryStore, storeIntact } from "./store";
import { expectAccessible } from "./accessible";
import { showCharts } from "./charts";

test("a run uploaded without a dataset: link it, remap a tool, archive it, delete it", async ({ page, request }) => {
  const run = { name: "curated in e2e", system: "No Directives", model: "gpt-curate" };
  const step = (tool: string, args: object) => ({ type: "tool_call", tool, args, result: "ok" });
  const line = (id: string) =>
    JSON.stringify({
      run,
      question: { id },
      final_sql: "SELECT count(*) FROM sänger",
      steps: [
        step("describe_table", { table_name: "sänger" }),
        step("peek_table", { table: "konzert" }),
        step("peek_table", { table: "stadion" }),
      ],
    });
  await page.goto("/");
  await page.getByTestId("upload-input").setInputFiles({
    name: "curate.jsonl",
    mimeType: "application/x-ndjson",
    buffer: Buffer.from([line("0"), line("22")].join("\n")),
  });
  // peek_table has no role by default: the form asks before storing; stored as "other" for now.
  await page.getByTestId("upload-review").getByRole("button", { name: "Store" }).click();
  await page
    .getByTestId("upload-report")
    .getByRole("link", { name: /curated in e2e/ })
    .click();
  await expect(page).toHaveURL(/\/runs\/[^/]+$/);
  const runUrl = page.url();
  await expect(page.getByTestId("run-summary")).toContainText("needs gold tables");
  await showCharts(page);
  await expect(page.getByTestId("chart-exploration")).toContainText("No question with known gold tables");

  // Link the dataset: traces are linked to its questions and measured again.
  await page.getByTestId("run-curation").getByText("Edit this run").click();
  await page.getByLabel("Dataset of the run").selectOption("spider-de");
  await page.getByRole("button", { name: "Link and measure again" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Linked" })).toContainText("2 of 2 traces");
  await page.reload();
  await expect(page.getByTestId("run-summary")).toContainText("2 exploratory vs 3 gold");
  await page.getByTestId("run-curation").getByText("Edit this run").click();
  await expectAccessible(page); // the run page with its edit panel open
  await page.getByTestId("run-curation").getByText("Edit this run").click();
  await showCharts(page);
  await expect(page.getByTestId("chart-exploration")).not.toContainText("No question with known gold tables");
  await page.getByTestId("traces-table").locator("tbody tr").first().getByRole("link").first().click();
  await expect(page.getByTestId("table-strip").locator('[title*="gold table"]').first()).toBeVisible();
  await page.goto(runUrl);

  // Remap peek_table: the preview counts the calls that change role, then the run is measured again.
  await page.getByTestId("run-curation").getByText("Edit this run").click();
  await page.getByLabel("Role of peek_table").selectOption("schema_exploration");
  await page.getByRole("button", { name: "Preview" }).click();
  await expect(page.getByRole("status").filter({ hasText: "change role" })).toContainText("4 calls change role");
  await page.getByRole("button", { name: "Apply and recompute" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Roles saved" })).toContainText("4 calls changed role");
  await page.reload();
  await expect(page.getByTestId("run-history")).toContainText("peek_table → schema_exploration");

  // Archive: gone from the run list and the Experiments page, kept.
  await page.getByTestId("run-curation").getByText("Edit this run").click();
  await page.getByRole("button", { name: "Archive" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Archived" })).toBeVisible();
  await page.goto("/");
  await expect(page.getByTestId("runs-table")).not.toContainText("curated in e2e");
  await page.goto("/experiments");
  await expect(page.locator("main")).not.toContainText("curated in e2e");
  await page.goto("/?archived=true");
  await expect(page.getByTestId("runs-table")).toContainText("curated in e2e");

  // Delete: the confirmation names the traces; afterwards nothing of the run is left.
  await page.goto(runUrl);
  const runId = decodeURIComponent(new URL(runUrl).pathname.split("/").pop()!);
  await page.getByTestId("run-curation").getByText("Edit this run").click();
  await page.getByRole("button", { name: "Delete…" }).click();
  await page.getByRole("button", { name: "Delete the run and its 2 traces" }).click();
  await expect(page).toHaveURL(/\/\?deleted=/);
  expect((await request.get(runUrl)).status()).toBe(404);
  expect(queryStore("main", "SELECT count(*) AS n FROM traces WHERE run_id = ?", [runId])).toEqual([{ n: 0 }]);
  expect(queryStore("main", "SELECT count(*) AS n FROM runs WHERE id = ?", [runId])).toEqual([{ n: 0 }]);
  expect(storeIntact("main")).toBe(true);
});

test("unknown runs, questions, datasets and traces answer 404", async ({ request }) => {
  for (const url of [
    "/runs/nope",
    "/runs/nope/questions/1",
    "/datasets?dataset=nope",
    "/experiments?experiment=nope",
    "/api/traces/nope/steps",
    "/api/traces/nope/steps/0",
    "/api/uploads/nope/errors",
    "/api/runs/nope/traces.csv",
  ]) {
    expect((await request.get(url)).status(), url).toBe(404);
  }
});

test("a dataset imported from the browser: BIRD mini-dev questions over its DDL", async ({ page }) => {
  const shared = process.env.METRON_SHARED_DATA ?? path.resolve(import.meta.dirname, "..", "..", "shared", "data");
  const ddl = [
    "california_schools",
    "card_games",
    "codebase_community",
    "debit_card_specializing",
    "european_football_2",
    "financial",
    "formula_1",
    "student_club",
    "superhero",
    "thrombosis_prediction",
    "toxicology",
  ].map((d) => path.join(shared, "bird-minidev", "schema-ddl", `${d}.sql`));
  await page.goto("/datasets");
  await page.getByText("Import a dataset").click();
  await page.locator('input[name="dataset-name"]').fill("bird-browser");
  await page
    .getByLabel("Question file")
    .setInputFiles(path.join(shared, "bird-minidev", "mini_dev_sqlite.dev-split.json"));
  await page.getByLabel("DDL .sql files (schema only)").check();
  await page.getByLabel("Database files").setInputFiles(ddl);
  await page.getByRole("button", { name: "Import" }).click();
  const report = page.getByTestId("dataset-report");
  await expect(report).toContainText("242 questions over 11 schema-only databases", { timeout: 30_000 });
  await expect(report).toContainText("242 by EXPLAIN");
  await expect(report).toContainText("Repeated question ids kept once: 137, 138");
  await expectAccessible(page);

  // An agent's trace file given as the questions: said what it is, by its own name (not the server's staging path).
  await page.goto("/datasets");
  await page.getByText("Import a dataset").click();
  await page.locator('input[name="dataset-name"]').fill("mistaken");
  await page.getByLabel("Question file").setInputFiles(path.join(shared, "traces", "claude-code", "session_b.jsonl"));
  await page.getByLabel("DDL .sql files (schema only)").check();
  await page.getByLabel("Database files").setInputFiles(ddl.slice(0, 1));
  await page.getByRole("button", { name: "Import" }).click();
  await expect(
    page.getByText("import failed: session_b.jsonl: it reads as an agent's traces (claude-code)", { exact: false }),
  ).toBeVisible({ timeout: 30_000 });
  await expect(page.locator("main")).not.toContainText("dataset-uploads");
});

import { parse } from "csv-parse/sync";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { expectAccessible } from "./accessible";

test("upload a file, watch progress, read the report, follow the link to the run", async ({ page }) => {
  await page.goto("/");
  const good = (id: string) =>
    JSON.stringify({
      run: { name: "uploaded in e2e", system: "Sophrosyne-Oracle", model: "gpt-upload" },
      question: { id, db_id: "pets_1" },
      steps: [{ type: "tool_call", tool: "list_tables", result: "pets" }],
    });
  const lines = [
    good("1"),
    good("2"),
    '{"run": oops',
    good("3"),
    ...Array.from({ length: 400 }, (_, i) => good(`bulk-${i}`)),
  ];
  await page.getByTestId("upload-input").setInputFiles({
    name: "e2e-upload.jsonl",
    mimeType: "application/x-ndjson",
    buffer: Buffer.from(lines.join("\n")),
  });

  const progress = page.getByRole("progressbar", { name: "Upload of e2e-upload.jsonl" });
  await expect(progress).toBeVisible();
  const report = page.getByTestId("upload-report");
  await expect(report).toContainText("403 traces stored");
  await expect(report).toContainText("1 line with errors");
  await expect(report).toContainText("line 3: invalid JSON");
  await expect(progress).toHaveAttribute("aria-valuenow", "100");
  await expect(page.getByTestId("upload-file")).toContainText("404 lines processed");

  const download = page.waitForEvent("download");
  await report.getByRole("link", { name: /Download all 1 errors/ }).click();
  const file = await (await download).createReadStream();
  const chunks: Buffer[] = [];
  for await (const c of file) chunks.push(c as Buffer);
  expect(JSON.parse(Buffer.concat(chunks).toString().trim())).toMatchObject({ line: 3 });

  await report.getByRole("link", { name: /uploaded in e2e · Sophrosyne-Oracle · gpt-upload/ }).click();
  await expect(page.getByRole("heading", { name: "uploaded in e2e" })).toBeVisible();
  await expect(page.getByText("Page 1 of 9 · 403 traces")).toBeVisible();
  await page.screenshot({ path: "e2e/screenshots/run-page.png", fullPage: true });
  await expectAccessible(page);
});

test("a 24 MB upload arrives whole: nothing is cut at the proxy, and it is read in the ingest worker", async ({
  request,
}) => {
  const padding = "x".repeat(30_000);
  const lines = Array.from({ length: 800 }, (_, i) =>
    JSON.stringify({
      run: { name: "large upload in e2e", system: "No Directives", model: "gpt-large" },
      question: { id: `large-${i}`, db_id: "pets_1" },
      steps: [
        { type: "tool_call", tool: "list_tables", args: {}, result: "pets" },
        { type: "reasoning", content: `${i} ${padding}` },
      ],
    }),
  );
  const body = Buffer.from(lines.join("\n") + "\n");
  expect(body.byteLength).toBeGreaterThan(24_000_000);
  const response = await request.post("/api/ingest?filename=large.jsonl", { data: body, timeout: 120_000 });
  expect(response.status()).toBe(200);
  const report = await response.json();
  // The ingest worker thread reads a SQLite store's uploads; on PostgreSQL the lines are read on the writing thread.
  expect(report).toMatchObject({
    inserted: 800,
    error_count: 0,
    bytes: body.byteLength,
    read_in_worker: !process.env.E2E_POSTGRES_URL,
  });
});

test("the runs table sorts on the server and keeps the sort in the URL", async ({ page }) => {
  await page.goto("/");
  const table = page.getByTestId("runs-table");
  await expect(table).toContainText("e2e No Directives");
  await table.getByRole("button", { name: "Run" }).click();
  await expect(page).toHaveURL(/sort=name/);
  await expect(page).toHaveURL(/dir=asc/);
  const firstRun = () => table.locator("tbody tr").first().locator("td").first();
  await expect(firstRun()).toHaveText("e2e No Directives");
  await table.getByRole("button", { name: "Run" }).click();
  await expect(page).not.toHaveURL(/dir=asc/); // desc is the default, left out of the URL
  await expect(firstRun()).toHaveText("uploaded in e2e");
  await page.reload();
  await expect(firstRun()).toHaveText("uploaded in e2e");
  await expect(table.locator("th[aria-sort=descending]")).toContainText("Run");

  await page.getByLabel("Filter by system").selectOption("Sophrosyne");
  await expect(page).toHaveURL(/system=Sophrosyne/);
  // The e2e run and the two simulated demo runs of that system, besides the sweeps earlier tests ran with it.
  await expect(table.locator("tbody tr").filter({ hasNotText: /Sweep \d{4}-/ })).toHaveCount(3);
  const systems = await table.locator("tbody tr td:nth-child(2)").allInnerTexts();
  expect(systems.length).toBeGreaterThanOrEqual(3);
  expect(new Set(systems)).toEqual(new Set(["Sophrosyne"]));
  await page.screenshot({ path: "e2e/screenshots/home.png", fullPage: true });
  await expectAccessible(page);
});

test("real foreign files: the model and each question's own text come from the file; what it lacks is asked before storing", async ({
  page,
}) => {
  const shared = process.env.METRON_SHARED_DATA ?? path.resolve(import.meta.dirname, "..", "..", "shared", "data");
  await page.goto("/");
  // Spider-Agent: the model is in the file's name, the system is not said anywhere, execute_bash has no role.
  await page
    .getByTestId("upload-input")
    .setInputFiles(path.join(shared, "traces", "spider-agent", "spider-agent-tc_claude-3-7-sonnet_sf_bq024.json"));
  const review = page.getByTestId("upload-review");
  await expect(review).toContainText("openai-messages");
  await expect(review).toContainText("does not say system");
  await expect(review.getByLabel("Model")).toHaveCount(0); // known from the file
  await expect(review.getByLabel("Role of execute_bash")).toBeVisible();
  await review.getByLabel("System (variant)").fill("Spider-Agent");
  await review.getByLabel("Role of execute_bash").selectOption("execution");
  await review.getByRole("button", { name: "Store" }).click();
  const report = page.getByTestId("upload-report");
  await expect(report.getByTestId("upload-format")).toHaveText("openai-messages");
  await expect(report).toContainText("1 trace stored");
  await expect(report).toContainText("Questions linked: 1 by field");
  await expect(report).toContainText("Spider-Agent · claude-3-7-sonnet");
  await report.getByRole("link", { name: /Spider-Agent · claude-3-7-sonnet/ }).click();
  await expect(page.getByText("model claude-3-7-sonnet")).toBeVisible();
  await page.getByTestId("traces-table").locator("tbody tr").first().getByRole("link").first().click();
  await expect(page.getByTestId("question-text")).toHaveText(/^For the year 2012, which top 10 evaluation groups/);

  // LiveSQLBench: neither model nor system is in the file; the researcher says them in the same form.
  await page.goto("/");
  await page
    .getByTestId("upload-input")
    .setInputFiles(path.join(shared, "traces", "livesqlbench-adk", "single_turn_samples.json"));
  await expect(page.getByTestId("upload-review")).toContainText("does not say system, model");
  await page.getByTestId("upload-review").getByLabel("System (variant)").fill("ADK agent");
  await page.getByTestId("upload-review").getByLabel("Model").fill("gemini-2.5-pro");
  await page.getByTestId("upload-review").getByRole("button", { name: "Store" }).click();
  await expect(page.getByTestId("upload-report")).toContainText("3 traces stored");
  await page
    .getByTestId("upload-report")
    .getByRole("link", { name: /ADK agent · gemini-2.5-pro/ })
    .click();
  await expect(page.getByText("model gemini-2.5-pro")).toBeVisible();
  // What the file does not record is said so, never 0.
  const summary = page.getByTestId("run-summary");
  await expect(summary).toContainText("Tokensnot recorded");
  await expect(summary).toContainText("Over-explorationneeds gold tables");
  await expect(summary).toContainText("Failed with extra tablesneeds gold tables");
  await expect(summary).toContainText("of 3 judged (recorded)");
  const csv = await (
    await page.request.get(page.url().replace(/\/runs\/([^/?]+).*/, "/api/runs/$1/traces.csv"))
  ).text();
  const rows = parse(csv) as string[][];
  const col = (name: string) => rows[0].indexOf(name);
  for (const r of rows.slice(1, 4))
    for (const c of ["tokens", "gold_count", "over_exploration", "extra_tables"]) expect(r[col(c)], c).toBe("");
  await page.getByTestId("traces-table").locator("tbody tr").first().getByRole("link").first().click();
  await expect(page.getByTestId("question-text")).toContainText(
    "I want to analyze how the Signal-to-Noise Quality Indicator (SNQI) varies",
  );

  await page.goto("/");
  await page
    .getByTestId("upload-input")
    .setInputFiles({ name: "notes.txt", mimeType: "text/plain", buffer: Buffer.from("these are my notes\n") });
  await expect(page.getByTestId("upload-file").getByRole("alert")).toContainText(
    "Supported formats: canonical, openai-messages",
  );
});

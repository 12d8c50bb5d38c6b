import { expect, test, type APIRequestContext } from "@playwright/test";
import { expectAccessible } from "./accessible";

/**
 * A script-shaped client of the versioned API (issue 33): it lists the runs, pages through two runs' traces, posts a
 * boolean and a numeric score for every trace, and reads the run's summary back; the pages then show what the API
 * said — the run page, the Experiments matrix, the comparison with its paired test, the LaTeX export — and
 * `score:` finds the traces.
 */

async function json<T>(r: Promise<import("@playwright/test").APIResponse>): Promise<T> {
  const res = await r;
  expect(res.status(), await res.text()).toBeLessThan(300);
  return (await res.json()) as T;
}

async function tracesOf(request: APIRequestContext, runId: string) {
  const ids: { id: string; question_id: string }[] = [];
  let cursor: string | null = null;
  do {
    const page: { traces: { id: string; question_id: string }[]; next_cursor: string | null } = await json(
      request.get(`/api/v1/runs/${encodeURIComponent(runId)}/traces`, {
        params: { limit: 2, ...(cursor ? { cursor } : {}) },
      }),
    );
    expect(page.traces.length).toBeLessThanOrEqual(2);
    ids.push(...page.traces);
    cursor = page.next_cursor;
  } while (cursor);
  return ids;
}

test("scores posted through the API show on the run page, Experiments, compare (paired test), LaTeX and search", async ({
  page,
  request,
}) => {
  const { runs } = await json<{ runs: { id: string; name: string }[] }>(
    request.get("/api/v1/runs", { params: { dataset: "spider-de" } }),
  );
  const base = runs.find((r) => r.name === "e2e No Directives")!;
  const other = runs.find((r) => r.name === "e2e Sophrosyne-Oracle")!;
  expect(base && other).toBeTruthy();
  const [baseTraces, otherTraces] = [await tracesOf(request, base.id), await tracesOf(request, other.id)];
  expect(baseTraces).toHaveLength(4);
  expect(otherTraces).toHaveLength(4);
  // The baseline's judge accepts questions 0 and 23, the oracle's all four: two discordant pairs.
  const judged = (q: string, all: boolean) => all || q === "0" || q === "23";
  const scores = [
    ...baseTraces.map((t) => ({ trace_id: t.id, name: "e2e_judge", value: judged(t.question_id, false) })),
    ...otherTraces.map((t) => ({ trace_id: t.id, name: "e2e_judge", value: judged(t.question_id, true) })),
    ...[...baseTraces, ...otherTraces].map((t, i) => ({
      trace_id: t.id,
      name: "e2e_quality",
      value: 0.5 + i / 20,
      source: "llm-judge:fake-judge-1",
    })),
  ];
  const report = await json<{ stored: number; errors: unknown[] }>(
    request.post("/api/v1/scores", { data: { scores } }),
  );
  expect(report).toMatchObject({ stored: 16, errors: [] });
  // A refused score names its place and field; the others of the batch are stored.
  const refused = await request.post("/api/v1/scores", {
    data: { scores: [{ trace_id: baseTraces[0].id, name: "e2e_judge", value: 0.3 }] },
  });
  expect(refused.status()).toBe(200);
  expect((await refused.json()).errors[0]).toMatchObject({ index: 0, message: expect.stringContaining("value") });

  const { scores: summary } = await json<{
    scores: { name: string; n: number; mean: { estimate: number; low: number; high: number } }[];
  }>(request.get(`/api/v1/runs/${base.id}/scores`));
  const judge = summary.find((s) => s.name === "e2e_judge")!;
  expect(judge).toMatchObject({ n: 4, mean: { estimate: 0.5 } });
  const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

  // The run page: the same mean and interval.
  await page.goto(`/runs/${base.id}`);
  const panel = page.getByTestId("scores");
  await expect(panel.locator('tr[data-score="e2e_judge"]')).toContainText(
    `${pct(judge.mean.estimate)} [${pct(judge.mean.low)}, ${pct(judge.mean.high)}]`,
  );
  await expect(panel.locator('tr[data-score="e2e_judge"]')).toContainText("n=4");
  await expect(panel.getByTestId("scores-chart-boolean").locator("svg.recharts-surface").first()).toBeVisible();
  await panel.getByTestId("scores-export").getByText("LaTeX (booktabs)").click();
  const latex = panel.getByTestId("scores-export").getByTestId("latex");
  await expect(latex).toContainText("e2e\\_judge (\\%)");
  await expect(latex).toContainText(
    `${(judge.mean.estimate * 100).toFixed(1)} {\\scriptsize [${(judge.mean.low * 100).toFixed(1)}, ${(judge.mean.high * 100).toFixed(1)}]}`,
  );
  await expectAccessible(page);

  // The run's CSV: a column per score, each trace's value (the last columns, so a comma in a text before them is moot).
  const csv = (await (await request.get(`/api/runs/${base.id}/traces.csv`)).text()).trim().split(/\r?\n/);
  expect(csv[0].split(",").slice(-2)).toEqual(["score:e2e_judge", "score:e2e_quality"]);
  const judgeColumn = csv.slice(1).map((l) => [l.split(",")[0], l.split(",").at(-2)]);
  expect(Object.fromEntries(judgeColumn)).toEqual({ "0": "true", "1": "false", "22": "false", "23": "true" });

  // Experiments: the cells' scores, pooled as their EX is.
  await page.goto("/experiments");
  const cells = page.getByTestId("scores-spider-de");
  const cell = (run: string) => cells.locator(`tr[data-score="e2e_judge"] td[data-run="gpt-4o · ${run}"]`);
  await expect(cell("No Directives")).toContainText("50.0%");
  await expect(cell("Sophrosyne-Oracle")).toContainText("100.0%");
  await expect(cells.getByRole("columnheader", { name: "gpt-4o · Sophrosyne-Oracle" })).toBeVisible();

  // Compare: each score against the baseline with its paired test.
  await page.goto(`/compare?runs=${base.id},${other.id}&baseline=${base.id}`);
  const paired = page.getByTestId("paired-scores");
  const judgeRow = paired.locator('tr[data-score="e2e_judge"]');
  await expect(judgeRow).toContainText("+50.0 pp");
  await expect(judgeRow).toContainText("b=0, c=2, p=0.500");
  await expect(paired.locator('tr[data-score="e2e_quality"]')).toContainText("+0.2");
  await page.getByTestId("paired-scores-export").getByText("LaTeX (booktabs)").click();
  await expect(page.getByTestId("paired-scores-export").getByTestId("latex")).toContainText("0.500");
  await page.screenshot({ path: "e2e/screenshots/compare-scores.png", fullPage: true });
  await expectAccessible(page);

  // score: finds the traces, by API and on the search page.
  const found = await json<{ total: number; hits: { trace_id: string }[] }>(
    request.get("/api/v1/search", { params: { q: "score:e2e_judge=false" } }),
  );
  expect(found.hits.map((h) => h.trace_id).sort()).toEqual(
    baseTraces
      .filter((t) => !judged(t.question_id, false))
      .map((t) => t.id)
      .sort(),
  );
  await page.goto(`/search?q=${encodeURIComponent("score:e2e_quality>0.7")}`);
  await expect(page.getByTestId("search-total")).toContainText("3 traces");
});

test("a score set by hand on a question page shows there and on the run page; a wrong kind is refused", async ({
  page,
  request,
}) => {
  const { runs } = await json<{ runs: { id: string; name: string }[] }>(request.get("/api/v1/runs"));
  const run = runs.find((r) => r.name === "e2e Sophrosyne")!;
  await page.goto(`/runs/${run.id}/questions/0`);
  const box = page.getByTestId("trace-scores");
  await box.getByLabel("name").fill("e2e_hand");
  await box.getByLabel(/^value/).fill("correct-ish");
  await box.getByLabel(/^comment/).fill("looks right to me");
  await box.getByRole("button", { name: "Set score" }).click();
  await expect(box.locator('li[data-score="e2e_hand"]')).toContainText("correct-ish");
  await expect(box.locator('li[data-score="e2e_hand"]')).toContainText("categorical · human");
  await expect(box.locator('li[data-score="e2e_hand"]')).toContainText("looks right to me");
  // The same name with a number: refused, and what was typed stays.
  await box.getByLabel("name").fill("e2e_hand");
  await box.getByLabel(/^value/).fill("3");
  await box.getByRole("button", { name: "Set score" }).click();
  await expect(box.getByRole("alert")).toContainText("categorical");
  await expect(box.getByLabel(/^value/)).toHaveValue("3");
  await expectAccessible(page);
  await page.goto(`/runs/${run.id}`);
  await expect(page.getByTestId("scores").locator('tr[data-score="e2e_hand"]')).toContainText("correct-ish 100%");
});

test("the API reference renders the OpenAPI document offline: no request leaves the server, nothing in the console", async ({
  page,
}) => {
  const outside: string[] = [];
  const errors: string[] = [];
  page.on("request", (r) => {
    if (!/^(http:\/\/127\.0\.0\.1[:/]|data:|blob:)/.test(r.url())) outside.push(r.url());
  });
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto("/api-docs");
  const reference = page.getByTestId("api-reference");
  // An operation of the document, rendered by Scalar from /api/v1/openapi.json.
  await expect(reference.getByText("/api/v1/runs", { exact: false }).first()).toBeVisible({ timeout: 15_000 });
  await page.waitForLoadState("networkidle");
  expect(outside).toEqual([]);
  expect(errors).toEqual([]);
});

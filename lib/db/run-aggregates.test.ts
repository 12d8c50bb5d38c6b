/**
 * Run aggregates as typed selections (run-aggregates.ts) agree, value for value, with the SQL text they replace (kept
 * here as the reference), on both engines, over Spider-de traces evaluated for real (EX against the databases): the
 * home page's runs in every sort order, a run's summary, the Experiments cells.
 */
import { describe, expect, it, vi } from "vitest";
import { evaluateRun } from "@/lib/eval/evaluate-run";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { realisticLines } from "@/lib/testing/realistic-traces";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { runSortKeys } from "@/lib/url/runs";
import type { Sql } from "@/lib/db/sql";
import { getRunAggregates, listRunFacets, listRuns, listRunsPage } from "./queries/runs";
import { listRunLabels } from "@/lib/labels/labels";
import { captureStatements, fullScans, planOf } from "@/lib/testing/plans";
import { listExperimentRunIds, listOverviewCells } from "./queries/overview";
import { listComparableRuns } from "./queries/compare";
import { parseRunList } from "@/lib/metrics/overview";
import { many, one, raw, write } from "@/lib/db/typed";

/**
 * The aggregates as SQL text, as lib/db/queries/metrics-sql.ts wrote them before the typed port — but for two fixes
 * the port made: counts over no traces are 0 (were NULL), and a run without traces has no unpriced trace (the
 * home page's LEFT JOIN counted its row of NULLs as one).
 */
const reference = (sql: Sql) => {
  const overheadCost =
    sql.dialect === "postgres"
      ? `(CASE WHEN jsonb_typeof((t.directives)::jsonb #> '{overhead,cost_usd}') = 'number' THEN ((t.directives)::jsonb #>> '{overhead,cost_usd}')::double precision END)`
      : `json_extract(t.directives, '$.overhead.cost_usd')`;
  const judged = "('correct','wrong_result','pred_error','timeout','no_submission')";
  const correct = `(CASE WHEN t.ex_outcome = 'correct' THEN 1 WHEN t.ex_outcome IN ${judged} THEN 0 WHEN t.ex_outcome = 'gold_error' THEN NULL ELSE t.recorded_correct END)`;
  return `count(t.id) AS traces, count(DISTINCT t.question_id) AS questions,
  coalesce(sum(CASE WHEN t.ex_outcome IN ${judged} THEN 1 ELSE 0 END), 0) AS "exJudged",
  coalesce(sum(CASE WHEN t.ex_outcome = 'correct' THEN 1 ELSE 0 END), 0) AS "exCorrect",
  count(${correct}) AS judged, coalesce(sum(${correct}), 0) AS correct,
  count(t.recorded_correct) AS "recordedJudged", coalesce(sum(t.recorded_correct), 0) AS "recordedCorrect",
  sum(CASE WHEN t.gold_count IS NOT NULL THEN t.exploratory_calls END) AS "exploratoryWithGold",
  sum(t.gold_count) AS "goldSum",
  CASE WHEN count(t.extra_table_count) > 0 THEN sum(CASE WHEN ${correct} = 0 AND t.extra_table_count > 0 THEN 1 ELSE 0 END) END AS "failedWithExtra",
  coalesce(sum(CASE WHEN t.tokens_recorded = 1 THEN t.input_tokens END), 0) AS "inputTokens",
  coalesce(sum(CASE WHEN t.tokens_recorded = 1 THEN t.output_tokens END), 0) AS "outputTokens",
  coalesce(sum(t.tokens_recorded), 0) AS "tokensRecorded",
  coalesce(sum(CASE WHEN t.ex_outcome = 'gold_error' THEN 1 ELSE 0 END), 0) AS "goldErrors",
  sum(coalesce(t.cost_usd, t.cost_computed_usd)) AS cost,
  sum(${overheadCost}) AS "directiveOverheadCost",
  count(t.id) - count(coalesce(t.cost_usd, t.cost_computed_usd)) AS "unpricedTraces",
  coalesce(sum(t.link_tp), 0) AS "linkTruePositive", coalesce(sum(t.link_pred), 0) AS "linkPredicted",
  coalesce(sum(t.link_gold), 0) AS "linkGold", sum(t.empty_probe_count) AS "emptyProbes",
  count(t.empty_probe_count) AS "probeTraces", avg(t.directive_recall) AS "directiveRecall",
  avg(t.directive_flag_rate) AS "directiveFlagRate"`;
};

describe.each(ENGINES)("run aggregates (%s store)", (engine) => {
  const store = useEngineStore(engine, async (s) => {
    await importSpiderDe(s);
    const report = await ingestStream(s.sql, chunksOf(realisticLines()));
    await evaluateRun(s.sql, report.runs.find((r) => r.name === "worker run")!.id);
    // a run without traces: its counts are 0, its measured sums unknown
    await write(
      s.sql,
      raw`INSERT INTO runs (id, name, system, model, config) VALUES ('empty', 'empty', 'S', 'm', '{}')`,
    );
  });

  it("give a run's summary as the SQL text did, with real EX outcomes among them", async () => {
    const runs = await many(store.sql, raw<{ id: string }>`SELECT id FROM runs`);
    expect(runs.length).toBeGreaterThan(2);
    for (const { id } of runs) {
      const expected = await one(
        store.sql,
        raw`SELECT ${raw.raw(reference(store.sql))} FROM traces t WHERE t.run_id = ${id}`,
      );
      expect(await getRunAggregates(store.sql, id), id).toEqual(expected);
    }
    const worker = await one(store.sql, raw<{ id: string }>`SELECT id FROM runs WHERE name = 'worker run'`);
    const a = await getRunAggregates(store.sql, worker!.id);
    expect(a.exJudged).toBeGreaterThan(20);
    expect(a.exCorrect).toBeGreaterThan(0);
    expect(await getRunAggregates(store.sql, "empty")).toMatchObject({ traces: 0, exJudged: 0, goldSum: null });
    const empty = (await listRuns(store.sql, { sort: "name", dir: "asc" })).find((r) => r.id === "empty");
    expect(empty).toMatchObject({ traces: 0, unpricedTraces: 0, exJudged: 0, judged: 0, cost: null });
  });

  it.each(runSortKeys.flatMap((k) => [[k, "asc"] as const, [k, "desc"] as const]))(
    "list the runs sorted by %s %s, each with its aggregates",
    async (sort, dir) => {
      const rows = await listRuns(store.sql, { sort, dir });
      expect(rows.map((r) => r.id).sort()).toEqual(
        (await many(store.sql, raw<{ id: string }>`SELECT id FROM runs`)).map((r) => r.id).sort(),
      );
      for (const r of rows) {
        const { id, name, system, model, datasetId, createdAt, archivedAt, simulated, ...aggregates } = r;
        void [name, system, model, datasetId, createdAt, archivedAt, simulated];
        expect(aggregates).toEqual(await getRunAggregates(store.sql, id));
      }
      if (sort === "traces") {
        const counts = rows.map((r) => r.traces);
        expect(counts).toEqual([...counts].sort((a, b) => (dir === "asc" ? a - b : b - a)));
      }
      if (sort === "correct") {
        const shares = rows.map((r) => (r.judged > 0 ? r.correct / r.judged : null));
        const known = shares.filter((x): x is number => x !== null);
        expect(shares.slice(0, known.length)).toEqual(known); // unknown shares last
        expect(known).toEqual([...known].sort((a, b) => (dir === "asc" ? a - b : b - a)));
        expect(known.some((x) => x !== Math.round(x))).toBe(true); // a share, not an integer division
      }
    },
  );

  it("cover the runs a view asks for: reruns, sweeps, archived and dataset-less runs only when asked", async () => {
    await write(
      store.sql,
      raw`INSERT INTO runs (id, name, system, model, dataset_id, config, created_at, archived_at) VALUES
        ('rr', 'Reruns', 'S', 'm', 'spider-de', '{}', '2020-01-01', NULL),
        ('rc', 'reruns of x', 'S', 'm', 'spider-de', '{"reruns":true}', '2020-01-02', NULL),
        ('sw', 'a sweep', 'S', 'm', 'spider-de', '{"sweep":{"id":"s1"}}', '2020-01-03', NULL),
        ('ar', 'archived', 'S', 'm', 'spider-de', '{}', '2020-01-04', '2020-02-01'),
        ('d1', 'with dataset', 'S', 'm', 'spider-de', '{"simulated":true}', '2020-01-05', NULL)`,
    );
    try {
      const ids = async (f: Parameters<typeof listExperimentRunIds>[1]) =>
        (await listExperimentRunIds(store.sql, f)).filter((id) => ["rr", "rc", "sw", "ar", "d1"].includes(id));
      expect(await ids({})).toEqual(["d1"]);
      expect(await ids({ sweeps: true })).toEqual(["sw", "d1"]);
      expect(await ids({ archived: true })).toEqual(["ar", "d1"]);
      expect(await ids({ runIds: ["rr", "d1", "sw"] })).toEqual(["rr", "sw", "d1"]); // named runs, creation order
      expect(await ids({ dataset: "other" })).toEqual([]);
      // one cell pools d1 and sw (same dataset, model, system), in creation order, with d1 simulated
      const cells = await listOverviewCells(store.sql, ["d1", "sw"]);
      expect(cells).toHaveLength(1);
      expect(cells[0]).toMatchObject({ group: "spider-de", model: "m", system: "S", traces: 0 });
      expect(parseRunList(cells[0].runList)).toEqual([
        { id: "sw", name: "a sweep", simulated: false },
        { id: "d1", name: "with dataset", simulated: true },
      ]);
    } finally {
      await write(store.sql, raw`DELETE FROM runs WHERE id IN ('rr', 'rc', 'sw', 'ar', 'd1')`);
    }
  });

  it("list the runs the compare page offers, by group (dataset, else benchmark), each with its traces", async () => {
    const runs = await listComparableRuns(store.sql);
    const counts = await many(
      store.sql,
      raw<{
        id: string;
        n: number;
      }>`SELECT r.id, count(t.id) AS n FROM runs r LEFT JOIN traces t ON t.run_id = r.id GROUP BY r.id`,
    );
    expect(runs.map((r) => [r.id, r.traces]).sort()).toEqual(counts.map((c) => [c.id, c.n]).sort());
    expect(runs.find((r) => r.id === "empty")?.group).toBe("(no dataset)");
    const groups = runs.map((r) => r.group);
    expect(groups).toEqual([...groups].sort()); // code point order: "(no dataset)" before "spider-de"
    expect(new Set(groups).size).toBeGreaterThan(1);
  });

  it.each(runSortKeys.flatMap((k) => [[k, "asc"] as const, [k, "desc"] as const]))(
    "page the runs sorted by %s %s as the whole list sorts them, reading the totals of the page's runs only",
    async (sort, dir) => {
      const all = await listRuns(store.sql, { sort, dir });
      expect(all.length).toBeGreaterThan(3);
      const pages: typeof all = [];
      for (let page = 1; page <= Math.ceil(all.length / 2); page++) {
        const statements = await captureStatements(store.sql, async (spy) => {
          const got = await listRunsPage(spy, { sort, dir, page, pageSize: 2 });
          expect(got.total).toBe(all.length);
          expect(got.page).toBe(page);
          pages.push(...got.rows);
        });
        const totals = statements.filter((st) => /run_totals/.test(st.text));
        expect(totals).toHaveLength(1);
        // By a run's own column, the totals of two runs are read; by a total, those of every run.
        const ids = totals[0].params
          .map((p) => (Array.isArray(p) ? p : typeof p === "string" && p.startsWith("[") ? JSON.parse(p) : null))
          .find((p) => p !== null) as string[];
        expect(ids).toHaveLength(
          ["name", "system", "model", "created"].includes(sort) ? pages.length - (page - 1) * 2 : all.length,
        );
      }
      expect(pages).toEqual(all);
      // Past the last page: the last page.
      expect((await listRunsPage(store.sql, { sort, dir, page: 99, pageSize: 2 })).rows).toEqual(
        all.slice(-(all.length % 2 || 2)),
      );
    },
  );

  it("pool the Experiments cells with the same aggregates", async () => {
    const ids = (await many(store.sql, raw<{ id: string }>`SELECT id FROM runs WHERE id != 'empty'`)).map((r) => r.id);
    const cells = await listOverviewCells(store.sql, ids);
    expect(cells.length).toBeGreaterThan(0);
    const total = cells.reduce((n, c) => n + c.traces, 0);
    expect(total).toBe((await one(store.sql, raw<{ n: number }>`SELECT count(*) AS n FROM traces`))!.n);
  });
});

describe.each(ENGINES)("runs' totals kept by version (%s store)", (engine) => {
  const store = useEngineStore(engine, async (s) => {
    await ingestStream(s.sql, chunksOf(realisticLines()));
  });

  it("list the home page's runs from their stored totals: no query walks the store's traces", async () => {
    const statements = await captureStatements(store.sql, async (spy) => {
      await listRuns(spy, { sort: "correct", dir: "desc" });
      await listRunFacets(spy);
      await listComparableRuns(spy);
      const ids = (await many(spy, raw<{ id: string }>`SELECT id FROM runs`)).map((r) => r.id);
      await listRunLabels(spy, ids);
    });
    for (const s of statements) {
      const plan = await planOf(store.sql, s);
      expect(fullScans(plan, ["traces", "steps"], { t: "traces", s: "steps" }), `${s.text}\n${plan}`).toEqual([]);
    }
    // The upload stored the totals: reading them computes nothing.
    expect(statements.some((s) => /count\(distinct "t"."question_id"\)/i.test(s.text))).toBe(false);
  });

  it("compute a run's totals again once its version moves, and store them for the next read", async () => {
    const run = (await many(store.sql, raw<{ id: string }>`SELECT id FROM runs ORDER BY id`))[0].id;
    const before = await getRunAggregates(store.sql, run);
    await write(store.sql, raw`UPDATE traces SET recorded_correct = 1 WHERE run_id = ${run}`);
    await write(store.sql, raw`UPDATE runs SET version = version + 1 WHERE id = ${run}`);
    const after = (await listRuns(store.sql, { sort: "name", dir: "asc" })).find((r) => r.id === run)!;
    expect(after.recordedCorrect).toBe(after.recordedJudged);
    expect(after.recordedCorrect).toBeGreaterThan(before.recordedCorrect);
    // Stored in the background: the next read finds them current.
    await vi.waitFor(async () =>
      expect(
        await one(
          store.sql,
          raw<{
            n: number;
          }>`SELECT count(*) AS n FROM run_totals rt JOIN runs r ON r.id = rt.run_id AND r.version = rt.version WHERE rt.run_id = ${run}`,
        ),
      ).toEqual({ n: 1 }),
    );
    expect(await getRunAggregates(store.sql, run)).toEqual(
      Object.fromEntries(Object.entries(after).filter(([k]) => k in before)),
    );
  });
});

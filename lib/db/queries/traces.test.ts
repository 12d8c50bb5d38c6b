/**
 * A run's question table (typed, lib/db/typed.ts) on both engines, over traces written on Spider-de's real questions:
 * every sort key in both directions (ties broken by question order, empty values last), every filter, the labels.
 */
import { describe, expect, it } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { realisticLines } from "@/lib/testing/realistic-traces";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { traceSortKeys, type TraceSortKey } from "@/lib/url/runs";
import type { TraceListRow } from "@/lib/metrics/trace-row";
import type { Param, Sql } from "@/lib/db/sql";
import { anyRunHasQuestion, getTraceSql, iterateTraces, listTraceFacets, listTraces, traceExists } from "./traces";
import { one, raw, write } from "@/lib/db/typed";

const KEY: Record<TraceSortKey, (r: TraceListRow) => number | string | null> = {
  question: () => 0,
  db: (r) => r.dbId,
  steps: (r) => r.stepCount,
  tools: (r) => r.toolCallCount,
  exploratory: (r) => r.exploratoryCalls,
  over: (r) => r.overExploration,
  extra: (r) => r.extraTableCount,
  empty: (r) => r.emptyProbeCount,
  tokens: (r) => r.tokens,
  outcome: (r) => r.exOutcome,
};
/** Question order: numeric ids as numbers first, then text by code point, then sample. */
const questionOrder = (a: TraceListRow, b: TraceListRow) => {
  const na = /^(0|-?[1-9]\d*)$/.test(a.questionId);
  const nb = /^(0|-?[1-9]\d*)$/.test(b.questionId);
  if (na !== nb) return na ? -1 : 1;
  if (na && nb && Number(a.questionId) !== Number(b.questionId)) return Number(a.questionId) - Number(b.questionId);
  if (a.questionId !== b.questionId) return a.questionId < b.questionId ? -1 : 1;
  return a.sample - b.sample;
};

describe.each(ENGINES)("a run's question table (%s store)", (engine) => {
  const store = useEngineStore(engine, async (s) => {
    await importSpiderDe(s); // so each trace knows its database
    await ingestStream(s.sql, chunksOf(realisticLines()));
  });
  const workerRun = async () =>
    (await one(store.sql, raw<{ id: string }>`SELECT id FROM runs WHERE name = 'worker run'`))!.id;
  const all = async (run: string, extra: object = {}) =>
    listTraces(store.sql, run, { sort: "question", dir: "asc", page: 1, pageSize: 1000, ...extra });

  it.each([
    ["question", "asc", {}],
    ["tokens", "desc", {}],
    ["outcome", "asc", { failing: true }],
  ] as const)(
    "walk every row the filters keep in batches, in the table's order (the CSV export): sorted by %s %s",
    async (sort, dir, filters) => {
      const run = await workerRun();
      const { rows } = await listTraces(store.sql, run, { sort, dir, page: 1, pageSize: 10_000, ...filters });
      const batches: TraceListRow[][] = [];
      for await (const b of iterateTraces(store.sql, run, { sort, dir, ...filters }, 3)) batches.push(b);
      expect(batches.every((b) => b.length <= 3)).toBe(true);
      expect(batches.length).toBe(Math.ceil(rows.length / 3));
      expect(rows.length).toBeGreaterThan(3);
      expect(batches.flat()).toEqual(rows);
    },
  );

  it("list the run's traces in question order, numbers as numbers", async () => {
    const { rows, total } = await all(await workerRun());
    expect(total).toBe(rows.length);
    expect(rows.length).toBeGreaterThan(50);
    expect([...rows].sort(questionOrder).map((r) => r.id)).toEqual(rows.map((r) => r.id));
    expect(rows.every((r) => r.questionText === null || r.questionText.length <= 300)).toBe(true);
  });

  it("sort by question descending: numeric ids first, each kind descending", async () => {
    const { rows } = await listTraces(store.sql, await workerRun(), {
      sort: "question",
      dir: "desc",
      page: 1,
      pageSize: 1000,
    });
    const ids = rows.filter((r) => r.sample === 0).map((r) => Number(r.questionId));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
  });

  it.each(traceSortKeys.flatMap((k) => [[k, "asc"] as const, [k, "desc"] as const]))(
    "sort by %s %s, ties in question order, empty values last",
    async (sort, dir) => {
      const run = await workerRun();
      const { rows } = await listTraces(store.sql, run, { sort, dir, page: 1, pageSize: 1000 });
      for (let i = 1; i < rows.length; i++) {
        const [a, b] = [KEY[sort](rows[i - 1]), KEY[sort](rows[i])];
        if (a === null) expect(b, `${sort} ${dir}: a value after an empty one`).toBeNull();
        else if (b !== null && a !== b) expect(dir === "asc" ? a < b : a > b, `${sort} ${dir} at ${i}`).toBe(true);
        else if (a === b && sort !== "outcome" && sort !== "question")
          expect(questionOrder(rows[i - 1], rows[i])).toBeLessThan(0);
      }
      const page2 = await listTraces(store.sql, run, { sort, dir, page: 2, pageSize: 10 });
      expect(page2.rows.map((r) => r.id)).toEqual(rows.slice(10, 20).map((r) => r.id));
    },
  );

  it("filter by failing, database, difficulty-free runs, trace ids and label, counting what it filters", async () => {
    const run = await workerRun();
    const { rows } = await all(run);
    const failing = await all(run, { failing: true });
    expect(failing.total).toBe(rows.filter((r) => r.recordedCorrect === 0 && r.exOutcome === null).length);
    expect(failing.total).toBeGreaterThan(0);
    const db = rows[0].dbId!;
    expect(db).toBeTruthy();
    expect((await all(run, { db })).rows.every((r) => r.dbId === db)).toBe(true);
    expect((await all(run, { db })).total).toBe(rows.filter((r) => r.dbId === db).length);
    const ids = rows.slice(3, 8).map((r) => r.id);
    expect((await all(run, { traceIds: ids })).rows.map((r) => r.id).sort()).toEqual([...ids].sort());
    await write(
      store.sql,
      raw`INSERT INTO labels (trace_id, seq, label, who) VALUES (${ids[0]}, -1, 'schema-linking', 't')`,
    );
    await write(
      store.sql,
      raw`INSERT INTO labels (trace_id, seq, label, who) VALUES (${ids[0]}, 2, 'schema-linking', 't')`,
    );
    await write(
      store.sql,
      raw`INSERT INTO labels (trace_id, seq, label, who) VALUES (${ids[0]}, 2, 'gold-wrong', 't')`,
    );
    const labelled = await all(run, { label: "schema-linking" });
    expect(labelled.rows.map((r) => r.id)).toEqual([ids[0]]);
    expect(labelled.rows[0].labels?.split(",").sort()).toEqual(["gold-wrong", "schema-linking"]);
    expect(rows.find((r) => r.id === ids[1])?.labels).toBeNull();
    const facets = await listTraceFacets(store.sql, run);
    expect(facets.databases).toEqual([...new Set(rows.map((r) => r.dbId!))].sort());
    expect(facets.databases.length).toBeGreaterThan(1);
  });

  it("read the first page in question order from the index, without sorting the run's traces", async () => {
    const run = await workerRun();
    const statements: { text: string; params: readonly Param[] }[] = [];
    const spy: Sql = {
      ...store.sql,
      compiled: {
        ...store.sql.compiled,
        all: <T>(text: string, params: readonly Param[] = []) => {
          statements.push({ text, params });
          return store.sql.compiled.all<T>(text, params);
        },
      },
    };
    await listTraces(spy, run, { sort: "question", dir: "asc", page: 1, pageSize: 50 });
    const page = statements.find((s) => /limit/i.test(s.text))!;
    const plan = await store.sql.transaction(async (tx) => {
      if (engine === "PostgreSQL") {
        // a test store is small enough that a scan would win on cost: ask whether the index can serve the order
        await tx.exec("SET LOCAL enable_seqscan = off; SET LOCAL enable_sort = off");
        return (await tx.compiled.all<Record<string, string>>(`EXPLAIN ${page.text}`, page.params))
          .map((r) => Object.values(r)[0])
          .join("\n");
      }
      return (await tx.compiled.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${page.text}`, page.params))
        .map((r) => r.detail)
        .join("\n");
    });
    expect(plan).toMatch(/traces_question_order/);
    if (engine === "PostgreSQL") expect(plan).not.toMatch(/^\s*(->\s*)?Sort\b/m);
    else expect(plan).not.toMatch(/TEMP B-TREE FOR ORDER BY/);
  });

  it("say whether a trace or a question exists, and give a trace's raw SQL", async () => {
    const run = await workerRun();
    const { rows } = await all(run);
    expect(await traceExists(store.sql, rows[0].id)).toBe(true);
    expect(await traceExists(store.sql, "nope")).toBe(false);
    expect(await anyRunHasQuestion(store.sql, ["nope", run], rows[0].questionId)).toBe(true);
    expect(await anyRunHasQuestion(store.sql, [run], "no such question")).toBe(false);
    expect(await getTraceSql(store.sql, rows[0].id, "final_sql")).toMatch(/SELECT/i);
    expect(await getTraceSql(store.sql, "nope", "final_sql")).toBeUndefined();
  });
});

/**
 * Custom scores on both engines: set and refused with the field named, one kind per name, idempotent import,
 * summaries and paired comparisons, and they survive a delete and re-ingest of their trace (keyed by identity).
 */
import { describe, expect, it } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { deleteRun } from "@/lib/ingest/remove";
import { recomputeRun } from "@/lib/ingest/recompute";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { jsonl, makeTraceLine } from "@/lib/testing/factories";
import { many, qb } from "@/lib/db/typed";
import { captureStatements, fullScans, planOf } from "@/lib/testing/plans";
import {
  compareRunScores,
  exportScores,
  importScores,
  listRunScoreNames,
  listScoreNames,
  listTraceScores,
  setScores,
  summarizeRunScores,
  summarizeRunSets,
} from "./scores";

const lines = (run: string) =>
  Array.from({ length: 12 }, (_, i) =>
    makeTraceLine({ run: { name: run, system: run, model: "m" }, question: { id: String(i), text: `q${i}` } }),
  );

describe.each(ENGINES)("custom scores (%s store)", (engine) => {
  const store = useEngineStore(engine, async (s) => {
    await ingestStream(s.sql, chunksOf(jsonl(...lines("A"), ...lines("B"))));
  });
  const tracesOf = async (run: string) =>
    many(
      store.sql,
      qb(store.sql)
        .selectFrom("traces as t")
        .innerJoin("runs as r", "r.id", "t.run_id")
        .select(["t.id", "t.run_id as runId", "t.question_id as q"])
        .where("r.name", "=", run)
        .orderBy("t.question_id"),
    );

  it("of a store that holds none: found absent without walking the runs' traces", async () => {
    const a = (await tracesOf("A"))[0].runId;
    const statements = await captureStatements(store.sql, async (spy) => {
      expect(await summarizeRunScores(spy, [a])).toEqual([]);
      expect(await listRunScoreNames(spy, a)).toEqual([]);
    });
    expect(statements).toHaveLength(2); // one look at the scores table each
    expect(statements.filter((st) => /traces/.test(st.text))).toEqual([]);
  });

  it("are set on traces, and refused with the field and the place named; a name keeps its kind", async () => {
    const [a] = await tracesOf("A");
    const r = await setScores(store.sql, [
      { trace_id: a.id, name: "faithfulness", value: 0.75, comment: "judge says mostly" },
      { trace_id: a.id, name: "judge_ok", value: true, source: "llm-judge:gpt-5.4-mini" },
      { trace_id: a.id, name: "verdict", value: "partial", source: "human" },
      { trace_id: a.id, name: "bad name!", value: 1 },
      { trace_id: "nope", name: "faithfulness", value: 1 },
      { trace_id: a.id, name: "faithfulness", value: "high" }, // a numeric score given a category
      { trace_id: a.id, name: "x", value: 1, source: "robot" },
      { trace_id: a.id, name: "y", value: { score: 1 } as unknown as number }, // no kind of score: said what is
      { trace_id: "gone", name: "faithfulness", value: true }, // missing and of the wrong kind: counted as missing
    ]);
    expect(r.stored).toBe(3);
    expect(r.unknown_traces).toBe(2);
    expect(r.errors.map((e) => [e.index, e.message.split(":")[0]])).toEqual([
      [3, "name"],
      [6, "source"],
      [7, "value"],
      [4, "trace_id"],
      [5, "value"],
      [8, "trace_id"],
    ]);
    expect(r.errors.find((e) => e.index === 7)?.message).toBe(
      "value: a finite number, true or false, or a category (a string of 1 to 200 characters)",
    );
    expect(await listTraceScores(store.sql, a.id)).toEqual([
      expect.objectContaining({
        name: "faithfulness",
        kind: "numeric",
        value: 0.75,
        source: "api",
        comment: "judge says mostly",
      }),
      expect.objectContaining({ name: "judge_ok", kind: "boolean", value: true, source: "llm-judge:gpt-5.4-mini" }),
      expect.objectContaining({ name: "verdict", kind: "categorical", value: "partial", source: "human" }),
    ]);
  });

  it("import idempotently by trace identity, summarize per run and compare runs pair by pair", async () => {
    const [as, bs] = [await tracesOf("A"), await tracesOf("B")];
    const score = (t: { id: string; q: string }, base: boolean) =>
      JSON.stringify({ trace_id: t.id, name: "judge_ok", value: base ? Number(t.q) % 2 === 0 : Number(t.q) % 3 !== 1 });
    const file = [...as.map((t) => score(t, true)), ...bs.map((t) => score(t, false)), "{not json"];
    const first = await importScores(store.sql, file);
    expect(first).toMatchObject({ stored: 24, unknown_traces: 0, errors: [{ index: 25 }] });
    expect((await importScores(store.sql, file)).stored).toBe(24); // again: replaced, not added
    expect(await exportScores(store.sql, as[0].runId)).toHaveLength(12 + 2); // judge_ok × 12, and the first test's two others
    const [summary] = (await summarizeRunScores(store.sql, [as[0].runId])).filter((s) => s.name === "judge_ok");
    expect(summary.n).toBe(12);
    expect(summary.mean!.estimate).toBeCloseTo(6 / 12);
    expect(summary.mean!.low).toBeLessThan(0.5);
    const cmp = (await compareRunScores(store.sql, [as[0].runId, bs[0].runId], 0)).paired.find(
      (c) => c.name === "judge_ok",
    )!;
    const vs = cmp.versus[1]!;
    expect(vs.pairs).toBe(12);
    // baseline true, other false / the reverse, from the values above
    const ids = Array.from({ length: 12 }, (_, i) => i);
    const b = ids.filter((i) => i % 2 === 0 && i % 3 === 1).length;
    const c = ids.filter((i) => i % 2 !== 0 && i % 3 !== 1).length;
    expect(vs.mcnemar).toMatchObject({ b, c });
  });

  it("survive recompute and a delete and re-ingest of their trace", async () => {
    const [a] = await tracesOf("A");
    await recomputeRun(store.sql, a.runId);
    expect((await listTraceScores(store.sql, a.id)).length).toBeGreaterThan(0);
    await deleteRun(store.sql, a.runId);
    await ingestStream(store.sql, chunksOf(jsonl(...lines("A"))));
    const [again] = await tracesOf("A");
    expect(again.id).toBe(a.id);
    expect((await listTraceScores(store.sql, again.id)).map((s) => s.name)).toEqual([
      "faithfulness",
      "judge_ok",
      "verdict",
    ]);
  });

  it("list the store's score names by seeks in the name index, not by walking every score", async () => {
    const names = await listScoreNames(store.sql);
    const all = await many(store.sql, qb(store.sql).selectFrom("scores").select("name").distinct().orderBy("name"));
    expect(names).toEqual(all.map((r) => r.name));
    expect(names).toEqual(expect.arrayContaining(["faithfulness", "judge_ok", "verdict"]));
    const [statement] = await captureStatements(store.sql, (spy) => listScoreNames(spy));
    const plan = await planOf(store.sql, statement);
    expect(fullScans(plan, ["scores"], { s: "scores" }), plan).toEqual([]);
  });

  it("pool each set of runs' scores from one read, as each set alone would give them", async () => {
    const [a, b] = [(await tracesOf("A"))[0].runId, (await tracesOf("B"))[0].runId];
    const sets = await summarizeRunSets(store.sql, [[a], [b], [a, b]]);
    expect(sets).toEqual([
      await summarizeRunScores(store.sql, [a]),
      await summarizeRunScores(store.sql, [b]),
      await summarizeRunScores(store.sql, [a, b]),
    ]);
    const compared = await compareRunScores(store.sql, [a, b], 0);
    expect(compared.runs).toEqual(sets.slice(0, 2));
    // B carries only judge_ok: its summaries name no score it lacks (shown "not recorded", never 0)
    expect(sets[1].map((x) => x.name)).toEqual(["judge_ok"]);
  });
});

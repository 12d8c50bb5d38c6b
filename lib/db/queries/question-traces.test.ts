/**
 * A question page's queries (typed, lib/db/typed.ts) on both engines: samples, the previous and next (failing)
 * question in the run's order, the same question in the other runs of the benchmark, and a trace's reruns.
 */
import { describe, expect, it } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { jsonl, makeTraceLine } from "@/lib/testing/factories";
import { getNeighbours, getQuestionTrace, listOtherRuns, listRerunsOf, listSamples } from "./question-traces";
import { getStepDetail, getStepStats, listStepSummaries, listStripSteps } from "./steps";
import { listLabels, listNotes } from "@/lib/labels/labels";
import { captureStatements, fullScans, planOf } from "@/lib/testing/plans";
import { many, one, raw } from "@/lib/db/typed";

const run = (name: string, config?: Record<string, unknown>) => ({
  name,
  system: name,
  model: "m",
  benchmark: "spider-de",
  ...(config ? { config } : {}),
});
const line = (runName: string, q: string, correct: boolean, extra: Record<string, unknown> = {}) =>
  makeTraceLine({
    run: run(runName),
    question: { id: q, db_id: "concert_singer", text: `question ${q}` },
    outcome: { status: "submitted", correct },
    ...extra,
  } as never);

describe.each(ENGINES)("question page queries (%s store)", (engine) => {
  const store = useEngineStore(engine, async (s) => {
    // Question ids as benchmarks write them: integers (ordered as numbers, "10" after "9"), then other text.
    const ids = ["10", "9", "2", "b", "A", "1"];
    const failing = new Set(["2", "b"]);
    await ingestStream(
      s.sql,
      chunksOf(
        jsonl(
          ...ids.map((q) => line("main", q, !failing.has(q))),
          line("main", "9", true, { sample: 1 }),
          line("other", "9", false),
          makeTraceLine({
            run: { ...run("elsewhere"), benchmark: "bird" },
            question: { id: "9", db_id: "concert_singer", text: "x" },
          }),
        ),
      ),
    );
  });
  const runId = async (name: string) =>
    (await one(store.sql, raw<{ id: string }>`SELECT id FROM runs WHERE name = ${name}`))!.id;
  const traceId = async (name: string, q: string) =>
    (await one(
      store.sql,
      raw<{
        id: string;
      }>`SELECT t.id FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = ${name} AND t.question_id = ${q} AND t.sample = 0`,
    ))!.id;

  it("list a question's samples in order", async () => {
    expect(await listSamples(store.sql, await runId("main"), "9")).toEqual([0, 1]);
  });

  it("walk the run's questions: integers as numbers first, then text by code point; failing ones apart", async () => {
    const main = await runId("main");
    // order: 1, 2, 9, 10, A, b
    expect(await getNeighbours(store.sql, main, "9")).toEqual({
      prev: "2",
      next: "10",
      prevFailing: "2",
      nextFailing: "b",
      position: 3,
      total: 6,
    });
    expect(await getNeighbours(store.sql, main, "1")).toMatchObject({ prev: undefined, next: "2", position: 1 });
    expect(await getNeighbours(store.sql, main, "b")).toMatchObject({ prev: "A", next: undefined, prevFailing: "2" });
    // From the text ids back into the integers, and the position counts questions, not samples ("9" has two).
    expect(await getNeighbours(store.sql, main, "A")).toEqual({
      prev: "10",
      next: "b",
      prevFailing: "2",
      nextFailing: "b",
      position: 5,
      total: 6,
    });
    expect(await getNeighbours(store.sql, main, "10")).toMatchObject({ prev: "9", next: "A", position: 4 });
  });

  it("read every query of a question page through an index: none walks the store's traces or steps", async () => {
    const main = await runId("main");
    const trace = await traceId("main", "9");
    const statements = await captureStatements(store.sql, async (spy) => {
      await getQuestionTrace(spy, main, "9", 0);
      await getNeighbours(spy, main, "9");
      await getNeighbours(spy, main, "A");
      await listOtherRuns(spy, main, "9");
      await listRerunsOf(spy, trace);
      await listSamples(spy, main, "9");
      await listStripSteps(spy, trace);
      await getStepStats(spy, trace);
      await listStepSummaries(spy, trace, 0);
      await getStepDetail(spy, trace, 1);
      await listLabels(spy, trace);
      await listNotes(spy, trace);
    });
    expect(statements.length).toBeGreaterThan(15);
    // The check sees a walk of the store when there is one (the old reruns-of query, by a JSON member).
    const walk = await captureStatements(store.sql, (spy) =>
      many(spy, raw`SELECT id FROM traces t WHERE t.meta LIKE ${"%rerun_of%"}`),
    );
    expect(fullScans(await planOf(store.sql, walk[0]), ["traces"], { t: "traces" })).toEqual(["traces"]);
    const neighbours = statements.filter((s) => /question_id/.test(s.text) && /limit/i.test(s.text));
    for (const s of neighbours.slice(0, 2))
      expect(await planOf(store.sql, s)).toMatch(/traces_question_order|traces_run_question/);
    for (const s of statements) {
      const plan = await planOf(store.sql, s);
      expect(fullScans(plan, ["traces", "steps"], { t: "traces", s: "steps" }), `${s.text}\n${plan}`).toEqual([]);
    }
  });

  it("find the question in the other runs of the same benchmark only", async () => {
    const others = await listOtherRuns(store.sql, await runId("main"), "9");
    expect(others).toEqual([
      {
        id: await runId("other"),
        name: "other",
        system: "other",
        model: "m",
        exOutcome: null,
        recordedCorrect: 0,
        kind: "run",
      },
    ]);
  });

  it("list a trace's reruns, newest first, with what their run is", async () => {
    const original = await traceId("main", "1");
    await ingestStream(
      store.sql,
      chunksOf(
        jsonl(
          makeTraceLine({
            run: { ...run("reruns of main"), config: { reruns: true, simulated: true } },
            question: { id: "1", db_id: "concert_singer", text: "question 1" },
            rerun_of: { trace_id: original, run_id: await runId("main"), sample: 0 },
          } as never),
        ),
      ),
    );
    const reruns = await listRerunsOf(store.sql, original);
    expect(reruns).toHaveLength(1);
    expect(reruns[0]).toMatchObject({ runName: "reruns of main", kind: "reruns", simulated: true, sample: 0 });
    expect(await listRerunsOf(store.sql, await traceId("main", "2"))).toEqual([]);
  });
});

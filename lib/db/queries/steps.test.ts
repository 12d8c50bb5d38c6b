/**
 * The timeline's step queries (typed, lib/db/typed.ts) on both engines, over traces written on Spider-de's real
 * questions: summaries page by page, a large result read back from its blob, the table strip, the stats, alignment.
 */
import { describe, expect, it } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { realisticLines } from "@/lib/testing/realistic-traces";
import { getStepDetail, getStepStats, listAlignSteps, listStepSummaries, listStripSteps } from "./steps";
import { one, raw } from "@/lib/db/typed";

describe.each(ENGINES)("step queries (%s store)", (engine) => {
  const store = useEngineStore(engine, async (s) => {
    await ingestStream(s.sql, chunksOf(realisticLines()));
  });
  /** The trace of question `q` in the worker run (results grow with the question: "x" × 40·q). */
  const traceOf = async (q: number) =>
    (await one(
      store.sql,
      raw<{
        id: string;
      }>`SELECT t.id FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = 'worker run' AND t.question_id = ${String(q)}`,
    ))!.id;

  it("summarise a trace's steps in order, a page at a time, without the full arguments", async () => {
    const id = await traceOf(64);
    const all = await listStepSummaries(store.sql, id, 0);
    expect(all.map((s) => s.tool ?? s.type)).toEqual([
      "list_tables",
      "describe_table",
      "read_query",
      "read_query",
      "reasoning",
      "submit_final_query",
    ]);
    expect(all.map((s) => s.seq)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(all[3].resultSize).toBe(JSON.stringify("x".repeat(64 * 40)).length);
    expect(all[4].summary).toMatch(/^Schritt 64: /);
    expect(all[4].contentSize).toBe(all[4].summary.length);
    // exploratory calls (docs/metrics.md): describe_table and PRAGMA table_info, not list_tables or a query
    expect(all.map((s) => s.exploratory)).toEqual([false, true, true, false, false, false]);
    expect(all.every((s) => s.emptyResult === null || typeof s.emptyResult === "boolean")).toBe(true);
    const page = await listStepSummaries(store.sql, id, 2, 2);
    expect(page.map((s) => s.seq)).toEqual([2, 3]);
  });

  it("read a step whole, its large result from the blob it is stored in", async () => {
    const id = await traceOf(64);
    const detail = await getStepDetail(store.sql, id, 3);
    expect(detail?.tool).toBe("read_query");
    expect(detail?.result).toBe(JSON.stringify("x".repeat(64 * 40)));
    expect(JSON.parse(detail!.args!)).toMatchObject({ max_rows: 5 });
    expect(await getStepDetail(store.sql, id, 99)).toBeUndefined();
  });

  it("give the table strip only the steps that touched a table, and the trace's step stats", async () => {
    const id = await traceOf(64);
    const strip = await listStripSteps(store.sql, id);
    expect(strip.length).toBeGreaterThan(0);
    for (const s of strip) {
      expect(Array.isArray(s.tables)).toBe(true);
      expect(typeof s.exploratory).toBe("boolean");
    }
    expect(await getStepStats(store.sql, id)).toEqual({ count: 6, maxDurationMs: null, firstStartedAt: null });
  });

  it("align on tool calls only, by their SQL where they have one", async () => {
    const id = await traceOf(64);
    const align = await listAlignSteps(store.sql, id);
    expect(align.map((a) => a.tool)).toEqual([
      "list_tables",
      "describe_table",
      "read_query",
      "read_query",
      "submit_final_query",
    ]);
    expect(align[2].text).toMatch(/^PRAGMA table_info/);
    expect(await listAlignSteps(store.sql, id, 2)).toHaveLength(2);
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteRun } from "@/lib/ingest/remove";
import { ingestStream } from "@/lib/ingest/ingest";
import { recomputeRun } from "@/lib/ingest/recompute";
import { searchTraces } from "@/lib/search";
import type { Sql } from "@/lib/db/sql";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, engineStore } from "@/lib/testing/engines";
import { jsonl, makeStep } from "@/lib/testing/factories";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { captureStatements, planOf } from "@/lib/testing/plans";
import { countLabels, exportLabels, importLabels, listLabels, listNotes, setLabel, setNote } from "./labels";
import { many, raw, write } from "@/lib/db/typed";

const lines = ["0", "1", "2", "22"].map((id) => ({
  run: { name: "triage", system: "Sophrosyne", model: "m", benchmark: "spider-de" },
  question: { id },
  steps: [
    makeStep({ tool: "describe_table", args: { table_name: "sänger" } }),
    makeStep({ tool: "submit_final_query", args: { query: "SELECT 1" } }),
  ],
}));
describe.each(ENGINES)("labels and notes (%s store)", (engine) => {
  let sql: Sql;
  let cleanup: () => Promise<void>;
  let runId = "";
  let ids: string[] = [];
  const ingest = async () => (await ingestStream(sql, chunksOf(jsonl(...lines), 1 << 16))).runs[0].id;

  beforeAll(async () => {
    const store = await engineStore(engine);
    ({ sql, cleanup } = store);
    await importSpiderDe(store);
    runId = await ingest();
    ids = (
      await many(sql, raw<{ id: string }>`SELECT id FROM traces WHERE run_id = ${runId} ORDER BY question_id`)
    ).map((r) => r.id);
  }, 60_000);
  afterAll(() => cleanup());

  it("set on traces and steps, counted per system × model, filter searches; they survive recompute and re-ingest", async () => {
    await setLabel(sql, ids[0], "join", { who: "ana" });
    await setLabel(sql, ids[1], "join");
    await setLabel(sql, ids[1], "  wrong   column ", { seq: 0 }); // a step's label, cleaned
    await setLabel(sql, ids[2], "join");
    await setLabel(sql, ids[2], "join", { on: false });
    await setNote(sql, ids[0], "joins singer twice");
    expect(await listLabels(sql, ids[1])).toEqual([
      { seq: -1, label: "join", who: "local", at: expect.any(String) },
      { seq: 0, label: "wrong column", who: "local", at: expect.any(String) },
    ]);
    const counts = async () => (await countLabels(sql, [runId])).map((c) => [c.label, c.traces]);
    expect(await counts()).toEqual([
      ["join", 2],
      ["wrong column", 1],
    ]);
    expect((await searchTraces(sql, "label:join")).hits.map((h) => h.traceId).sort()).toEqual([ids[0], ids[1]].sort());

    await recomputeRun(sql, runId);
    expect(await counts()).toEqual([
      ["join", 2],
      ["wrong column", 1],
    ]);
    await deleteRun(sql, runId);
    expect(await countLabels(sql, [runId])).toEqual([]);
    expect(await ingest()).toBe(runId); // the same file again: the same traces, the same labels
    expect(await counts()).toEqual([
      ["join", 2],
      ["wrong column", 1],
    ]);
    expect((await listNotes(sql, ids[0]))[0].note).toBe("joins singer twice");
  });

  it("exports JSONL and merges it back: nothing twice, unknown traces and bad lines reported by line", async () => {
    const out = await exportLabels(sql, runId);
    expect(out).toHaveLength(4); // three labels and a note
    const first = await importLabels(sql, out);
    expect(first).toMatchObject({ labels: 0, notes: 0, unknownTraces: 0, errors: [] }); // already there
    await write(sql, raw`DELETE FROM labels WHERE label = 'join'`);
    const merged = await importLabels(sql, [
      ...out,
      JSON.stringify({ trace_id: "no-such-trace", label: "join" }),
      "{not json",
      JSON.stringify({ trace_id: ids[3] }),
    ]);
    expect(merged.labels).toBe(2);
    expect(merged.unknownTraces).toBe(1);
    expect(merged.errors.map((e) => e.line)).toEqual([6, 7]);
    expect((await listLabels(sql, ids[0])).map((l) => [l.label, l.who])).toEqual([["join", "ana"]]); // who and when kept
    // a note merges by time: a later one replaces it, an earlier one does not
    const note = JSON.parse(out.find((l) => JSON.parse(l).note)!) as { trace_id: string; seq: number; at: string };
    const later = { trace_id: note.trace_id, seq: note.seq, note: "later", who: "bo", at: "2999-01-01T00:00:00.000Z" };
    expect((await importLabels(sql, [JSON.stringify(later)])).notes).toBe(1);
    const earlier = { ...later, note: "earlier", at: "2000-01-01T00:00:00.000Z" };
    expect((await importLabels(sql, [JSON.stringify(earlier)])).notes).toBe(0);
    expect((await listNotes(sql, note.trace_id)).find((n) => n.seq === note.seq)).toMatchObject({
      note: "later",
      who: "bo",
    });
  });

  it("counts a view's labels from the labels, each trace found by its id: runs outside the view and runs without labels add nothing", async () => {
    // A second system's run with labels of its own, and a third run with none.
    const other = async (system: string) =>
      (
        await ingestStream(
          sql,
          chunksOf(jsonl(...lines.map((l) => ({ ...l, run: { ...l.run, name: `view ${system}`, system } }))), 1 << 16),
        )
      ).runs[0].id;
    const [labelled, bare] = [await other("No Directives"), await other("Sophrosyne-Oracle")];
    const tracesOf = async (id: string) =>
      (await many(sql, raw<{ id: string }>`SELECT id FROM traces WHERE run_id = ${id} ORDER BY question_id`)).map(
        (r) => r.id,
      );
    for (const id of (await tracesOf(labelled)).slice(0, 3)) await setLabel(sql, id, "join");
    const view = async (runIds: string[]) =>
      (await countLabels(sql, runIds)).map((c) => [c.system, c.label, c.traces] as const);
    const mine = await view([runId]);
    expect(mine.length).toBeGreaterThan(0);
    expect(await view([runId, bare])).toEqual(mine);
    expect(await view([bare])).toEqual([]);
    expect(await view([labelled, bare])).toEqual([["No Directives", "join", 3]]);
    const both = await view([runId, labelled]);
    expect(both).toHaveLength(mine.length + 1);
    expect(both).toEqual(expect.arrayContaining([...mine, ["No Directives", "join", 3]]));
    if (engine === "SQLite") {
      // Walked from the labels, each trace by its key: not every trace of the view's runs (traces_run_id, by run).
      const [statement] = await captureStatements(sql, (spy) => countLabels(spy, [runId, labelled, bare]));
      const plan = await planOf(sql, statement);
      expect(plan.split("\n")[0]).toMatch(/^SCAN l\b/);
      expect(plan).toMatch(/SEARCH t USING INDEX sqlite_autoindex_traces_1 \(id=\?\)/);
      expect(plan).not.toMatch(/traces_run/);
    }
  });
});

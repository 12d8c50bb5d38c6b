import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deleteRun } from "@/lib/ingest/curate";
import { ingestStream } from "@/lib/ingest/ingest";
import { recomputeRun } from "@/lib/ingest/recompute";
import { searchTraces } from "@/lib/search";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { jsonl, makeStep } from "@/lib/testing/factories";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { countLabels, exportLabels, importLabels, listLabels, listNotes, setLabel, setNote } from "./labels";

const store = tempDb();
const sqlite = store.db.$client;
const lines = ["0", "1", "2", "22"].map((id) => ({
  run: { name: "triage", system: "Sophrosyne", model: "m", benchmark: "spider-de" },
  question: { id },
  steps: [
    makeStep({ tool: "describe_table", args: { table_name: "sänger" } }),
    makeStep({ tool: "submit_final_query", args: { query: "SELECT 1" } }),
  ],
}));
let runId = "";
let ids: string[] = [];
const ingest = async () => (await ingestStream(sqlite, chunksOf(jsonl(...lines), 1 << 16))).runs[0].id;

beforeAll(async () => {
  await importSpiderDe(store);
  runId = await ingest();
  ids = (
    sqlite.prepare("SELECT id FROM traces WHERE run_id = ? ORDER BY question_id").all(runId) as { id: string }[]
  ).map((r) => r.id);
}, 60_000);
afterAll(() => store.cleanup());

describe("labels and notes", () => {
  it("set on traces and steps, counted per system × model, filter searches; they survive recompute and re-ingest", async () => {
    await setLabel(sqlite, ids[0], "join", { who: "ana" });
    await setLabel(sqlite, ids[1], "join");
    await setLabel(sqlite, ids[1], "  wrong   column ", { seq: 0 }); // a step's label, cleaned
    await setLabel(sqlite, ids[2], "join");
    await setLabel(sqlite, ids[2], "join", { on: false });
    await setNote(sqlite, ids[0], "joins singer twice");
    expect(await listLabels(sqlite, ids[1])).toEqual([
      { seq: -1, label: "join", who: "local", at: expect.any(String) },
      { seq: 0, label: "wrong column", who: "local", at: expect.any(String) },
    ]);
    const counts = async () => (await countLabels(sqlite, [runId])).map((c) => [c.label, c.traces]);
    expect(await counts()).toEqual([
      ["join", 2],
      ["wrong column", 1],
    ]);
    expect((await searchTraces(sqlite, "label:join")).hits.map((h) => h.traceId).sort()).toEqual(
      [ids[0], ids[1]].sort(),
    );

    await recomputeRun(sqlite, runId);
    expect(await counts()).toEqual([
      ["join", 2],
      ["wrong column", 1],
    ]);
    await deleteRun(sqlite, runId);
    expect(await countLabels(sqlite, [runId])).toEqual([]);
    expect(await ingest()).toBe(runId); // the same file again: the same traces, the same labels
    expect(await counts()).toEqual([
      ["join", 2],
      ["wrong column", 1],
    ]);
    expect((await listNotes(sqlite, ids[0]))[0].note).toBe("joins singer twice");
  });

  it("exports JSONL and merges it back: nothing twice, unknown traces and bad lines reported by line", async () => {
    const out = await exportLabels(sqlite, runId);
    expect(out).toHaveLength(4); // three labels and a note
    const first = await importLabels(sqlite, out);
    expect(first).toMatchObject({ labels: 0, notes: 0, unknownTraces: 0, errors: [] }); // already there
    sqlite.prepare("DELETE FROM labels WHERE label = 'join'").run();
    const merged = await importLabels(sqlite, [
      ...out,
      JSON.stringify({ trace_id: "no-such-trace", label: "join" }),
      "{not json",
      JSON.stringify({ trace_id: ids[3] }),
    ]);
    expect(merged.labels).toBe(2);
    expect(merged.unknownTraces).toBe(1);
    expect(merged.errors.map((e) => e.line)).toEqual([6, 7]);
    expect((await listLabels(sqlite, ids[0])).map((l) => [l.label, l.who])).toEqual([["join", "ana"]]); // who and when kept
  });
});

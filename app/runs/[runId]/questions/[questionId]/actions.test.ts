/**
 * The question page's server actions (labels, note, promote, a score by hand): forged arguments are refused with the field named and
 * nothing written; an unknown trace is refused with the reason the label panel shows; valid ones do what they say.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { jsonl, makeTraceLine } from "@/lib/testing/factories";
import { ingestStream } from "@/lib/ingest/ingest";
import { listLabels, listNotes } from "@/lib/labels/labels";
import { many, qb } from "@/lib/db/typed";

const store = tempDb();
vi.mock("next/headers", () => ({ headers: async () => new Headers({ "x-metron-principal": "alice" }) }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("@/lib/db/store", () => ({ getSql: async () => store.sql }));

const actions = await import("./actions");
let traceId = "";
beforeAll(async () => {
  await ingestStream(store.sql, chunksOf(jsonl(makeTraceLine())));
  traceId = (await many(store.sql, qb(store.sql).selectFrom("traces").select("id")))[0].id;
});
afterAll(() => store.cleanup());

describe("the question page's actions", () => {
  it("toggle a label on and off, saying who, and give the trace's labels back", async () => {
    const on = await actions.toggleLabel(traceId, "  wrong join ", true);
    expect(on).toEqual({ ok: true, labels: [expect.objectContaining({ label: "wrong join", seq: -1, who: "alice" })] });
    expect(await actions.toggleLabel(traceId, "wrong join", false)).toEqual({ ok: true, labels: [] });
    expect(await listLabels(store.sql, traceId)).toEqual([]);
  });

  it("refuse a forged or empty label, or an unknown trace, with the reason, and write nothing", async () => {
    expect(await actions.toggleLabel(traceId, "   ", true)).toEqual({
      ok: false,
      error: expect.stringMatching(/^label: /),
    });
    expect(await actions.toggleLabel(traceId, "x", "yes" as unknown as boolean)).toEqual({
      ok: false,
      error: expect.stringMatching(/^on: /),
    });
    expect(await actions.toggleLabel("no-such-trace", "x", true)).toEqual({
      ok: false,
      error: expect.stringContaining("no-such-trace"),
    });
    expect(await actions.saveNote(traceId, { $set: 1 } as unknown as string)).toEqual({
      ok: false,
      error: expect.stringMatching(/^note: /),
    });
    expect(await listLabels(store.sql, traceId)).toEqual([]);
    expect(await listNotes(store.sql, traceId)).toEqual([]);
  });

  it("save the note, and refuse to promote a trace that is no rerun", async () => {
    expect(await actions.saveNote(traceId, "joins the wrong table")).toEqual({ ok: true });
    expect((await listNotes(store.sql, traceId))[0]).toMatchObject({ note: "joins the wrong table", seq: -1 });
    expect(await actions.promoteRerun(traceId, "Promoted")).toEqual({
      ok: false,
      error: expect.stringContaining("only a rerun can be promoted"),
    });
  });

  it("set a score by hand (source human, the value typed as its kind), refuse a forged name or a kind the name does not have", async () => {
    const set = await actions.setTraceScore(traceId, " reviewed ", "TRUE", "  looked at it ");
    expect(set).toEqual({
      ok: true,
      scores: [
        expect.objectContaining({
          name: "reviewed",
          kind: "boolean",
          value: true,
          source: "human",
          comment: "looked at it",
        }),
      ],
    });
    expect(await actions.setTraceScore(traceId, { $ne: 1 } as unknown as string, "1", "")).toEqual({
      ok: false,
      error: expect.stringMatching(/^name: /),
    });
    expect(await actions.setTraceScore(traceId, "reviewed", "0.5", "")).toEqual({
      ok: false,
      error: expect.stringContaining("reviewed is a boolean score"),
    });
    expect(await actions.setTraceScore("no-such-trace", "reviewed", "true", "")).toEqual({
      ok: false,
      error: "this trace is no longer in the store",
    });
  });
});

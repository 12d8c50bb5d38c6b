/** Server actions are endpoints: arguments a client could forge are refused with the field named, before any write. */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { tempDb } from "@/lib/testing/db";
import { chunksOf } from "@/lib/testing/db";
import { jsonl, makeTraceLine } from "@/lib/testing/factories";
import { ingestStream } from "@/lib/ingest/ingest";
import { one, raw } from "@/lib/db/typed";
import { sharedHandle } from "@/lib/db/sql";
import { runsWithoutViews } from "@/lib/views/ahead";

const store = tempDb();
vi.mock("next/headers", () => ({ headers: async () => new Headers() }));
vi.mock("next/cache", () => ({ revalidatePath: () => undefined }));
vi.mock("next/navigation", () => ({ redirect: () => undefined }));
vi.mock("@/lib/db/store", () => ({
  getSql: async () => store.sql,
  // The background pass after a curation closes what it opened: a handle that leaves the test's store open.
  storeOpener: () => async () => sharedHandle(store.sql),
}));
vi.stubEnv("METRON_VIEWS_AFTER_CURATION_MS", "0");

const actions = await import("./actions");
let runId = "";
beforeAll(async () => {
  runId = (await ingestStream(store.sql, chunksOf(jsonl(makeTraceLine())))).runs[0].id;
});
afterAll(() => store.cleanup());

describe("run curation actions", () => {
  it("refuse forged arguments, naming the field, and change nothing", async () => {
    const name = async () =>
      (await one(store.sql, raw<{ name: string }>`SELECT name FROM runs WHERE id = ${runId}`))!.name;
    const before = await name();
    const forged = { name: { $ne: 1 }, system: "s", model: "m", description: "", tags: "" } as unknown as Parameters<
      typeof actions.saveRunIdentity
    >[1];
    expect(await actions.saveRunIdentity(runId, forged)).toEqual({
      ok: false,
      error: expect.stringMatching(/^form\.name: /),
    });
    expect(await actions.setRunArchived(runId, "yes" as unknown as boolean)).toEqual({
      ok: false,
      error: expect.stringMatching(/^archived: /),
    });
    expect(await actions.setRunArchived(["x"] as unknown as string, true)).toEqual({
      ok: false,
      error: expect.stringMatching(/^runId: /),
    });
    expect(await actions.linkDataset(runId, "x".repeat(500))).toEqual({
      ok: false,
      error: expect.stringMatching(/^dataset: /),
    });
    expect(await name()).toBe(before);
  });

  it("still do what they are asked with valid arguments", async () => {
    const form = { name: "renamed", system: "s", model: "m", description: "d", tags: "a, b" };
    expect(await actions.saveRunIdentity(runId, form)).toMatchObject({ ok: true });
    expect((await one(store.sql, raw<{ name: string }>`SELECT name FROM runs WHERE id = ${runId}`))!.name).toBe(
      "renamed",
    );
    // The rename moved the run's version; the pass the action started stores the run's views for it.
    await vi.waitFor(async () => expect(await runsWithoutViews(store.sql, [runId])).toEqual([]), {
      timeout: 10_000,
      interval: 50,
    });
  });
});

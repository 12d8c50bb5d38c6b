/**
 * Derived data memoised by the runs' versions, kept in the store across restarts (issue 36): the first view after a
 * restart reads it, a write to a run computes it again, a new build computes it again, and what JSON cannot carry is
 * kept in memory only.
 */
import { describe, expect, it, vi } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { jsonl, makeTraceLine } from "@/lib/testing/factories";
import { many, qb, raw, write } from "@/lib/db/typed";
import { cachedByRun, cachedByRuns, flushDerived } from "./run-cache";
import { deleteRun } from "@/lib/ingest/remove";

const restart = () => (globalThis as unknown as { metronRunCache: Map<string, unknown> }).metronRunCache.clear();

describe.each(ENGINES)("the derived cache (%s store)", (engine) => {
  const store = useEngineStore(engine, async (s) => {
    await ingestStream(
      s.sql,
      chunksOf(
        jsonl(
          makeTraceLine({ run: { name: "a", system: "s", model: "m" } }),
          makeTraceLine({ run: { name: "b", system: "s", model: "m" } }),
        ),
      ),
    );
  });
  const runIds = async () =>
    (await many(store.sql, qb(store.sql).selectFrom("runs").select("id").orderBy("id"))).map((r) => r.id);
  const stored = async () =>
    many(store.sql, qb(store.sql).selectFrom("derived_cache").select(["kind", "runs", "versions"]));

  it("reads after a restart what a view computed, and computes again once a run's version moves", async () => {
    const [a, b] = await runIds();
    const compute = vi.fn(async () => ({ rows: [{ q: "1", share: 0.5 }], n: 2 }));
    expect(await cachedByRuns(store.sql, [b, a], "test-view", compute)).toEqual({
      rows: [{ q: "1", share: 0.5 }],
      n: 2,
    });
    await vi.waitFor(async () => expect((await stored()).filter((r) => r.kind === "test-view")).toHaveLength(1));
    restart();
    expect(await cachedByRuns(store.sql, [a, b], "test-view", compute)).toEqual({
      rows: [{ q: "1", share: 0.5 }],
      n: 2,
    });
    expect(compute).toHaveBeenCalledTimes(1); // the restart read it from the store
    await write(store.sql, raw`UPDATE runs SET version = version + 1 WHERE id = ${a}`);
    restart();
    await cachedByRuns(store.sql, [a, b], "test-view", compute);
    expect(compute).toHaveBeenCalledTimes(2);
    // replaced, not added: one row per view
    await vi.waitFor(async () => {
      const rows = (await stored()).filter((r) => r.kind === "test-view");
      expect(rows).toHaveLength(1);
      expect(rows[0].versions).toMatch(new RegExp(`${a}:2`));
    });
  });

  it("shares one computation between requests that ask for the same view while it is under way", async () => {
    const [a, b] = await runIds();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const compute = vi.fn(async () => {
      await gate; // under way: a second request arrives meanwhile
      return { n: 3 };
    });
    const first = cachedByRuns(store.sql, [a, b], "shared-view", compute);
    const ahead = cachedByRuns(store.sql, [b, a], "shared-view", compute, "ahead");
    await vi.waitFor(() => expect(compute).toHaveBeenCalledTimes(1));
    release();
    expect(await first).toEqual({ n: 3 });
    expect(await ahead).toEqual({ n: 3 });
    expect(compute).toHaveBeenCalledTimes(1);
    // Once done, nothing is left under way: another version computes again.
    await write(store.sql, raw`UPDATE runs SET version = version + 1 WHERE id = ${a}`);
    await cachedByRuns(store.sql, [a, b], "shared-view", compute);
    expect(compute).toHaveBeenCalledTimes(2);
    // A computation that fails fails every request that waited for it, and the next request tries again. It fails
    // once both requests have looked for it under way (on PostgreSQL each first reads the store on its own connection,
    // so the second may arrive later than any fixed wait).
    let fail!: () => void;
    const failGate = new Promise<void>((r) => (fail = r));
    const failing = vi.fn(async () => {
      await failGate;
      throw new Error("no");
    });
    await write(store.sql, raw`UPDATE runs SET version = version + 1 WHERE id = ${b}`);
    const underWay = (globalThis as unknown as { metronRunCacheComputing: Map<string, unknown> })
      .metronRunCacheComputing;
    const looked = vi.spyOn(underWay, "get");
    const both = [
      cachedByRuns(store.sql, [a, b], "shared-view", failing),
      cachedByRuns(store.sql, [a, b], "shared-view", failing),
    ];
    await vi.waitFor(() => expect(looked).toHaveBeenCalledTimes(2));
    looked.mockRestore();
    fail();
    for (const p of both) await expect(p).rejects.toThrow("no");
    expect(failing).toHaveBeenCalledTimes(1);
    expect(await cachedByRuns(store.sql, [a, b], "shared-view", compute)).toEqual({ n: 3 });
  });

  it("computes again under a new build, and keeps what JSON cannot carry in memory only", async () => {
    const [a] = await runIds();
    const compute = vi.fn(async () => ({ share: 1 }));
    await cachedByRun(store.sql, a, "test-build", compute);
    await vi.waitFor(async () => expect((await stored()).some((r) => r.kind === "test-build")).toBe(true));
    restart();
    process.env.METRON_CODE_STAMP = "another-build";
    try {
      await cachedByRun(store.sql, a, "test-build", compute);
    } finally {
      delete process.env.METRON_CODE_STAMP;
    }
    expect(compute).toHaveBeenCalledTimes(2);
    const odd = vi.fn(async () => ({ low: Number.NEGATIVE_INFINITY }));
    expect(await cachedByRun(store.sql, a, "test-odd", odd)).toEqual({ low: Number.NEGATIVE_INFINITY });
    await flushDerived(); // what waited to be stored is stored now: not this value
    expect((await stored()).some((r) => r.kind === "test-odd")).toBe(false);
  });

  it("stores a page's value a moment after the page has it (not on its way), or at once when flushed", async () => {
    const [a] = await runIds();
    const compute = vi.fn(async () => ({ big: "x".repeat(1000) }));
    await cachedByRun(store.sql, a, "test-later", compute);
    expect((await stored()).some((r) => r.kind === "test-later")).toBe(false); // not yet: the page did not wait
    await flushDerived();
    expect((await stored()).some((r) => r.kind === "test-later")).toBe(true);
    // Flushed once: the timer that was waiting stores nothing twice.
    await new Promise((r) => setTimeout(r, 300));
    expect((await stored()).filter((r) => r.kind === "test-later")).toHaveLength(1);
  });

  it("never stores a page's value of a version the run has left over the value of its new version", async () => {
    const [a] = await runIds();
    // A page computes the view at version v; its write waits a moment. Meanwhile the run moves to v+1 and a pass
    // ahead stores the view of v+1. The page's write then comes: it must leave v+1's value in place.
    await cachedByRun(store.sql, a, "test-stale", async () => ({ at: "old" }));
    await write(store.sql, raw`UPDATE runs SET version = version + 1 WHERE id = ${a}`);
    await cachedByRun(store.sql, a, "test-stale", async () => ({ at: "new" }), "ahead");
    await flushDerived();
    const [{ version }] = await many(store.sql, qb(store.sql).selectFrom("runs").select("version").where("id", "=", a));
    const rows = await many(
      store.sql,
      qb(store.sql).selectFrom("derived_cache").select(["versions", "value"]).where("kind", "=", "test-stale"),
    );
    expect(rows).toEqual([{ versions: expect.stringMatching(new RegExp(`${a}:${version}:`)), value: '{"at":"new"}' }]);
  });

  it("never gives a run deleted and uploaded again the views of the run it replaces, though its version starts over", async () => {
    const line = (q: string) =>
      makeTraceLine({ run: { name: "uploaded twice", system: "s", model: "m" }, question: { id: q } });
    const traces = (runId: string) => async () =>
      (await many(store.sql, qb(store.sql).selectFrom("traces").select("question_id").where("run_id", "=", runId)))
        .map((t) => t.question_id)
        .sort();
    const first = (await ingestStream(store.sql, chunksOf(jsonl(line("1"))))).runs[0].id;
    expect(await cachedByRun(store.sql, first, "test-twice", traces(first))).toEqual(["1"]);
    await flushDerived();
    await deleteRun(store.sql, first);
    expect(
      await many(store.sql, qb(store.sql).selectFrom("run_totals").select("run_id").where("run_id", "=", first)),
    ).toEqual([]); // the deleted run's totals go with it
    const again = (await ingestStream(store.sql, chunksOf(jsonl(line("1"), line("2"))))).runs[0].id;
    expect(again).toBe(first); // the same name, system and model: the same id, at the same version
    // Neither this process's memory nor the store's row holds for it.
    expect(await cachedByRun(store.sql, again, "test-twice", traces(again))).toEqual(["1", "2"]);
    restart();
    await flushDerived();
    expect(await cachedByRun(store.sql, again, "test-twice", traces(again))).toEqual(["1", "2"]);
  });
});

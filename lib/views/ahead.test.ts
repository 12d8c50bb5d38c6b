/**
 * Runs' views computed ahead of their first view (issue 36): after an ingest, the run page's derived data is in the
 * store, a page reads it without computing, a write to the run makes it missing again, and the pages' LRU is left to
 * the pages.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { metron, ROOT } from "@/lib/testing/metron-cli";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { jsonl, makeStep, makeTraceLine } from "@/lib/testing/factories";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { sharedData } from "@/lib/testing/shared-data";
import { ingestFile } from "@/lib/ingest/ingest-file";
import { flushDerived, hasDerived } from "@/lib/db/queries/run-cache";
import { listExperimentRunIds, listOverviewCells, loadOverview } from "@/lib/db/queries/overview";
import { listTraceFacets } from "@/lib/db/queries/traces";
import { getDirectiveSavings } from "@/lib/environment/directive-savings";
import { many, qb, raw, write } from "@/lib/db/typed";
import { listRunToolCounts, loadTraceUnits } from "@/lib/db/queries/units";
import { loadComparison } from "@/lib/db/queries/compare";
import { codeStamp } from "@/scripts/code-stamp.mjs";
import {
  precomputeExperimentViews,
  precomputeRunViews,
  runsWithoutViews,
  viewsAfterStream,
  viewsInBackground,
} from "./ahead";

const memory = () => (globalThis as unknown as { metronRunCache: Map<string, unknown> }).metronRunCache;

describe.each(ENGINES)("views computed ahead (%s store)", (engine) => {
  const store = useEngineStore(engine, async (s) => {
    const run = (name: string) => ({ run: { name, system: "s", model: "m" } });
    await ingestStream(
      s.sql,
      chunksOf(
        jsonl(
          makeTraceLine({ ...run("a"), question: { id: "1", db_id: "concert_singer", text: "How many?" } }),
          makeTraceLine({ ...run("a"), question: { id: "2", db_id: "pets_1", text: "Which?" } }),
          makeTraceLine({ ...run("b"), question: { id: "1", db_id: "concert_singer", text: "How many?" } }),
          makeTraceLine({ ...run("c"), question: { id: "1", db_id: "concert_singer", text: "How many?" } }),
        ),
      ),
    );
  });
  const runIds = async () =>
    (await many(store.sql, qb(store.sql).selectFrom("runs").select(["id", "name"]).orderBy("name"))).map((r) => r.id);
  const kinds = async (runId: string) =>
    (
      await many(
        store.sql,
        qb(store.sql).selectFrom("derived_cache").select("kind").where("runs", "=", runId).orderBy("kind"),
      )
    ).map((r) => r.kind);

  it("stores each run's views, which a page then reads without computing, until the run changes", async () => {
    const [a, b, c] = await runIds();
    await write(store.sql, raw`UPDATE runs SET archived_at = '2026-12-01T00:00:00Z' WHERE id = ${c}`);
    // Archived runs are left to their first view.
    expect((await runsWithoutViews(store.sql)).sort()).toEqual([a, b].sort());
    expect(await runsWithoutViews(store.sql, [b])).toEqual([b]);
    const before = memory().size;
    expect(await precomputeRunViews(store.sql, await runsWithoutViews(store.sql))).toBe(2);
    expect(memory().size).toBe(before); // the pages' LRU is not filled with views nobody asked for
    expect(await kinds(a)).toEqual(["directive-savings", "facets", "tools", "units"]);
    expect(await kinds(c)).toEqual([]);
    expect(await runsWithoutViews(store.sql)).toEqual([]);
    // A run with its units alone (a comparison or the Experiments overview computed them) still lacks the others.
    await write(store.sql, raw`DELETE FROM derived_cache WHERE kind = 'facets' AND runs = ${a}`);
    expect(await runsWithoutViews(store.sql)).toEqual([a]);
    expect(await precomputeRunViews(store.sql, [a])).toBe(1);
    expect(await runsWithoutViews(store.sql)).toEqual([]);

    // A page reads what was stored (a marker put in its place shows it was not computed again).
    const units = await loadTraceUnits(store.sql, a);
    expect(units.map((u) => u.questionId)).toEqual(["1", "2"]);
    await write(
      store.sql,
      raw`UPDATE derived_cache SET value = ${JSON.stringify([{ questionId: "stored" }])} WHERE kind = 'units' AND runs = ${b}`,
    );
    memory().clear();
    expect((await loadTraceUnits(store.sql, b)).map((u) => u.questionId)).toEqual(["stored"]);

    // A comparison starts from the runs' stored units.
    const comparison = await loadComparison(store.sql, [a, b], a);
    expect(comparison.comparison).not.toBeNull();

    // A write to a run (its version moves) makes its views missing again; the other run's stay.
    await write(store.sql, raw`UPDATE runs SET version = version + 1 WHERE id = ${a}`);
    expect(await runsWithoutViews(store.sql)).toEqual([a]);
    expect(await precomputeRunViews(store.sql, [a])).toBe(1);
    expect(await runsWithoutViews(store.sql)).toEqual([]);
    // Replaced, not added: one row per view and run.
    expect(await kinds(a)).toEqual(["directive-savings", "facets", "tools", "units"]);
  });

  it("stores the Experiments page's default views, which the page then reads, until one of their runs changes", async () => {
    const [a] = await runIds();
    // Every run's views computed anew (an earlier test put a marker in place of a run's stored units).
    await write(store.sql, raw`UPDATE runs SET version = version + 1`);
    await precomputeRunViews(store.sql, await runsWithoutViews(store.sql));
    const overviews = async () =>
      await many(
        store.sql,
        qb(store.sql).selectFrom("derived_cache").select(["runs", "value"]).where("kind", "=", "overview"),
      );
    expect(await overviews()).toEqual([]);
    // These runs have no dataset: the default view has no run (nothing to store); the view with the runs without a
    // dataset pools all three.
    expect(await listExperimentRunIds(store.sql, {})).toEqual([]);
    const all = await listExperimentRunIds(store.sql, { withoutDataset: true });
    const live = await many(store.sql, qb(store.sql).selectFrom("runs").select("id").where("archived_at", "is", null));
    expect(all.length).toBeGreaterThanOrEqual(2);
    expect([...all].sort()).toEqual(live.map((r) => r.id).sort());
    const before = memory().size;
    expect(await precomputeExperimentViews(store.sql)).toBe(1);
    expect(memory().size).toBe(before); // not kept in the pages' LRU
    expect(await hasDerived(store.sql, all, "overview")).toBe(true);
    expect(await precomputeExperimentViews(store.sql)).toBe(0); // stored: nothing missing
    const [stored] = await overviews();
    expect(stored.runs).toBe([...all].sort().join(","));

    // What was stored is what the page computes with nothing to read …
    await write(store.sql, raw`DELETE FROM derived_cache WHERE kind = 'overview'`);
    memory().clear();
    const page = await loadOverview(store.sql, { withoutDataset: true });
    expect(page.groups.length).toBe(1);
    expect(JSON.parse(stored.value)).toEqual(page.groups);
    await flushDerived();
    // … and the page reads it (a marker put in its place shows it was not computed again).
    await write(
      store.sql,
      raw`UPDATE derived_cache SET value = ${JSON.stringify([{ group: "stored" }])} WHERE kind = 'overview'`,
    );
    memory().clear();
    expect((await loadOverview(store.sql, { withoutDataset: true })).groups).toEqual([{ group: "stored" }]);

    // A write to one of its runs makes the view missing again.
    await write(store.sql, raw`UPDATE runs SET version = version + 1 WHERE id = ${a}`);
    expect(await hasDerived(store.sql, all, "overview")).toBe(false);
    await precomputeRunViews(store.sql, [a]);
    expect(await precomputeExperimentViews(store.sql)).toBe(1);
    expect(await hasDerived(store.sql, all, "overview")).toBe(true);
    expect(await overviews()).toHaveLength(1); // replaced, not added

    // The server's pass when only the Experiments view is missing computes it, and says so in those words.
    await write(store.sql, raw`DELETE FROM derived_cache WHERE kind = 'overview'`);
    const state = () => (globalThis as unknown as { metronViewsAhead?: { running?: boolean } }).metronViewsAhead;
    await vi.waitFor(() => expect(state()?.running ?? false).toBe(false), { timeout: 10_000 });
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      viewsInBackground(() => store.open());
      await vi.waitFor(
        () =>
          expect(log.mock.calls.flat().join("\n")).toMatch(
            /^metron: computed 1 view\(s\) of the Experiments page ahead in [\d.]+ s$/m,
          ),
        { timeout: 10_000 },
      );
      await vi.waitFor(() => expect(state()?.running ?? false).toBe(false), { timeout: 10_000 });
    } finally {
      log.mockRestore();
    }
    expect(await hasDerived(store.sql, all, "overview")).toBe(true);
  });

  it("keeps a run's views through an upload of traces it has already (its version does not move)", async () => {
    const [a, b] = await runIds();
    await precomputeRunViews(store.sql, await runsWithoutViews(store.sql));
    const version = async () =>
      (await many(store.sql, qb(store.sql).selectFrom("runs").select(["id", "version"]).orderBy("id"))).map(
        (r) => `${r.id}:${r.version}`,
      );
    const before = await version();
    const again = jsonl(
      makeTraceLine({
        run: { name: "a", system: "s", model: "m" },
        question: { id: "1", db_id: "concert_singer", text: "How many?" },
      }),
    );
    const report = await ingestStream(store.sql, chunksOf(again));
    expect([report.inserted, report.duplicates]).toEqual([0, 1]);
    expect(await version()).toEqual(before);
    expect(await runsWithoutViews(store.sql)).toEqual([]);
    // A new trace in run b moves b's version only.
    await ingestStream(
      store.sql,
      chunksOf(
        jsonl(
          makeTraceLine({
            run: { name: "b", system: "s", model: "m" },
            question: { id: "9", db_id: "pets_1", text: "New?" },
          }),
        ),
      ),
    );
    expect(await runsWithoutViews(store.sql)).toEqual([b]);
    expect(a).not.toBe(b);
  });

  it("computes in the server's background what is missing, and looks again when called meanwhile", async () => {
    const [a, b] = await runIds();
    await write(store.sql, raw`UPDATE runs SET version = version + 1`); // every run's views missing
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      viewsInBackground(() => store.open());
      viewsInBackground(() => store.open()); // while it runs: one more pass afterwards, not a second loop
      await vi.waitFor(async () => expect(await runsWithoutViews(store.sql)).toEqual([]), { timeout: 10_000 });
      await vi.waitFor(() =>
        expect(log.mock.calls.flat().join("\n")).toMatch(
          /metron: computed the views of [1-9]\d* run\(s\) ahead in [\d.]+ s/,
        ),
      );
      expect(await kinds(a)).toEqual(["directive-savings", "facets", "tools", "units"]);
      expect(await kinds(b)).toEqual(["directive-savings", "facets", "tools", "units"]);
      // Its second look is over before this store goes.
      const state = () => (globalThis as unknown as { metronViewsAhead?: { running?: boolean } }).metronViewsAhead;
      await vi.waitFor(() => expect(state()?.running ?? false).toBe(false), { timeout: 10_000 });
    } finally {
      log.mockRestore();
    }
  });

  it("after a stream of stored traces (OTLP), one pass once none came for the quiet period; none after batches that stored nothing", async () => {
    await write(store.sql, raw`UPDATE runs SET version = version + 1`); // every run's views missing
    const state = () => (globalThis as unknown as { metronViewsAhead?: { running?: boolean } }).metronViewsAhead;
    await vi.waitFor(() => expect(state()?.running ?? false).toBe(false), { timeout: 10_000 });
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      const missing = (await runsWithoutViews(store.sql)).length;
      expect(missing).toBeGreaterThan(0);
      // A quiet period far longer than the gaps between calls, so that a loaded machine cannot open a gap of its own.
      const after = viewsAfterStream(() => store.open(), 1500);
      after([{ inserted: 0 }, { inserted: 0 }]); // assembled groups that stored nothing: no pass
      await new Promise((r) => setTimeout(r, 1800));
      expect(await runsWithoutViews(store.sql)).toHaveLength(missing);
      // Traces arriving every 150 ms keep postponing the pass: it runs once, 1.5 s after the last.
      for (let i = 0; i < 4; i++) {
        after([{ inserted: 1 }]);
        await new Promise((r) => setTimeout(r, 150));
        expect(await runsWithoutViews(store.sql)).toHaveLength(missing);
      }
      await vi.waitFor(async () => expect(await runsWithoutViews(store.sql)).toEqual([]), { timeout: 10_000 });
      await vi.waitFor(() => expect(state()?.running ?? false).toBe(false), { timeout: 10_000 });
      expect(log.mock.calls.flat().filter((l) => /computed the views of/.test(String(l)))).toHaveLength(1);
    } finally {
      log.mockRestore();
    }
  });

  it("after a curation from the command line (run edit, unarchive, recompute) the run's views are stored again", async () => {
    const [a, b, c] = await runIds();
    // Views are looked up under the stamp of the code that computed them: the CLI's (dist/cli/code-stamp).
    vi.stubEnv("METRON_CODE_STAMP", codeStamp(ROOT));
    onTestFinished(() => void vi.unstubAllEnvs());
    await write(store.sql, raw`UPDATE runs SET archived_at = '2026-12-01T00:00:00Z' WHERE id = ${c}`);
    await precomputeRunViews(store.sql, await runsWithoutViews(store.sql));
    expect(await runsWithoutViews(store.sql)).toEqual([]);
    const version = async (id: string) =>
      (await many(store.sql, qb(store.sql).selectFrom("runs").select("version").where("id", "=", id)))[0].version;

    const before = await version(a);
    const edit = await metron(store.env, ["run", "edit", a, "--name", "a, renamed"]);
    expect(edit.err).toBe("");
    expect(edit.out).toMatch(/computed the views of 1 run\(s\) ahead/);
    expect(await version(a)).toBeGreaterThan(before); // the rename moved its version …
    expect(await runsWithoutViews(store.sql, [a])).toEqual([]); // … and its views for that version are stored

    expect((await metron(store.env, ["run", "unarchive", c, "--json"])).err).toBe("");
    expect(await runsWithoutViews(store.sql, [c])).toEqual([]);
    expect(await kinds(c)).toEqual(["directive-savings", "facets", "tools", "units"]);

    expect((await metron(store.env, ["recompute", "--run", b])).err).toBe("");
    expect(await runsWithoutViews(store.sql)).toEqual([]);
  }, 120_000);

  it("after `metron import` of an exported store, every imported run has its views (an export leaves them out)", async () => {
    vi.stubEnv("METRON_CODE_STAMP", codeStamp(ROOT));
    onTestFinished(() => void vi.unstubAllEnvs());
    const dir = mkdtempSync(path.join(os.tmpdir(), "metron-export-"));
    const target = tempDb(); // a fresh SQLite store, whichever engine the export came from
    onTestFinished(() => {
      target.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });
    expect((await metron(store.env, ["export", dir, "--json"])).err).toBe("");
    const imported = await metron({ DATABASE_PATH: target.file }, ["import", dir]);
    expect(imported.err).toBe("");
    const runs = await many(
      target.sql,
      qb(target.sql).selectFrom("runs").select("id").where("archived_at", "is", null),
    );
    expect(runs.length).toBeGreaterThan(0);
    expect(imported.out).toMatch(new RegExp(`computed the views of ${runs.length} run\\(s\\) ahead`));
    expect(await runsWithoutViews(target.sql)).toEqual([]);
  }, 120_000);

  it("stops between runs when asked", async () => {
    const ids = await runIds();
    let asked = 0;
    expect(await precomputeRunViews(store.sql, ids, { stop: () => asked++ > 0 })).toBe(1);
  });
});

/**
 * On real data: Spider-de's questions and databases (../shared/data) with a run linked to them, and the real
 * LiveSQLBench agent sample. What is stored ahead must be what a page would compute itself.
 */
describe("views computed ahead, on real data (SQLite store)", () => {
  const store = useEngineStore("SQLite", async (s) => {
    await importSpiderDe(s);
  });

  it("stores for each run exactly what its page computes, Spider-de questions and a real agent's traces alike", async () => {
    const dev = JSON.parse(readFileSync(sharedData("spider-de", "dev.json"), "utf8")) as {
      db_id: string;
      query: string;
    }[];
    const run = { name: "spider-de-run", system: "No Directives", model: "m", benchmark: "spider-de" };
    const lines = dev.slice(0, 60).map((q, i) => ({
      run,
      question: { id: String(i) },
      steps: [makeStep({ tool: "list_tables" }), makeStep({ tool: "read_query", args: { query: q.query } })],
      final_sql: q.query,
      outcome: { status: "submitted", correct: i % 3 !== 0 },
    }));
    await ingestStream(store.sql, chunksOf(jsonl(...lines)));
    await ingestFile(store.sql, sharedData("traces", "livesqlbench-adk", "single_turn_samples.json"));
    const ids = await runsWithoutViews(store.sql);
    expect(ids.length).toBe(2);
    expect(await precomputeRunViews(store.sql, ids)).toBe(2);
    const stored = async (id: string) =>
      Object.fromEntries(
        (
          await many(
            store.sql,
            qb(store.sql).selectFrom("derived_cache").select(["kind", "value"]).where("runs", "=", id),
          )
        ).map((r) => [r.kind, r.value]),
      );
    for (const id of ids) {
      const ahead = await stored(id);
      // Computed again as a page does, with nothing kept to read.
      memory().clear();
      await write(store.sql, raw`DELETE FROM derived_cache WHERE runs = ${id}`);
      const page = {
        units: await loadTraceUnits(store.sql, id),
        tools: await listRunToolCounts(store.sql, id),
        facets: await listTraceFacets(store.sql, id),
        "directive-savings": await getDirectiveSavings(store.sql, id),
      };
      for (const [kind, value] of Object.entries(page))
        expect(JSON.parse(ahead[kind]), `${kind} of ${id}`).toEqual(value);
      await flushDerived();
    }
    // Not empty views: 60 Spider-de questions and the sample's 3 tasks; the Spider-de run's savings an estimate.
    const all = await Promise.all(ids.map((id) => loadTraceUnits(store.sql, id)));
    expect(all.map((u) => u.length).sort((a, b) => a - b)).toEqual([3, 60]);
    const savings = await Promise.all(ids.map((id) => getDirectiveSavings(store.sql, id)));
    expect(savings.filter((s) => s !== null).length).toBeGreaterThanOrEqual(1);

    // The Experiments page's default views: the Spider-de run alone (the LiveSQLBench sample has no dataset here),
    // and both runs with its "runs without a dataset" box ticked; each stored as the page computes it.
    await flushDerived();
    expect(await listExperimentRunIds(store.sql, {})).toHaveLength(1);
    expect(await precomputeExperimentViews(store.sql)).toBe(2);
    const kept = new Map(
      (
        await many(
          store.sql,
          qb(store.sql).selectFrom("derived_cache").select(["runs", "value"]).where("kind", "=", "overview"),
        )
      ).map((r) => [r.runs, r.value]),
    );
    expect(kept.size).toBe(2);
    for (const filter of [{}, { withoutDataset: true }]) {
      const runs = await listExperimentRunIds(store.sql, filter);
      const value = kept.get([...runs].sort().join(","))!;
      await write(store.sql, raw`DELETE FROM derived_cache WHERE kind = 'overview'`);
      memory().clear();
      const page = await loadOverview(store.sql, filter);
      expect(JSON.parse(value), JSON.stringify(filter)).toEqual(page.groups);
      await flushDerived();
    }
    const spider = (await loadOverview(store.sql, {})).groups;
    expect(spider.map((g) => g.group)).toEqual(["spider-de"]);
    expect(spider[0].cells.m["No Directives"].stats.questions).toBe(60);
    // On this real store, the cells read aside (a worker's connection on SQLite) and cell by cell on a transaction's
    // own connection are the same: gold tables read by EXPLAIN on Spider-de's databases, the sample's runs unmatched.
    for (const filter of [{}, { withoutDataset: true }]) {
      const runs = await listExperimentRunIds(store.sql, filter);
      const aside = await listOverviewCells(store.sql, runs);
      const inThread = await store.sql.transaction((tx) => listOverviewCells(tx, runs), { readOnly: true });
      expect(inThread, JSON.stringify(filter)).toEqual(aside);
      expect(aside.find((c) => c.group === "spider-de")?.goldSum).toBeGreaterThan(0);
    }
  }, 60_000);

  it("stores a view this process already holds when the store lacks it (a page's write that failed)", async () => {
    await ingestFile(store.sql, sharedData("traces", "livesqlbench-adk", "single_turn_samples.json"));
    const id = (await many(store.sql, qb(store.sql).selectFrom("runs").select("id").orderBy("name").limit(1)))[0].id;
    await write(store.sql, raw`UPDATE runs SET version = version + 1 WHERE id = ${id}`); // its views missing
    await loadTraceUnits(store.sql, id); // a page's: kept in the process, stored a moment later
    await flushDerived();
    await write(store.sql, raw`DELETE FROM derived_cache WHERE runs = ${id}`); // as if that write had failed
    expect(await precomputeRunViews(store.sql, [id])).toBe(1);
    expect(await runsWithoutViews(store.sql, [id])).toEqual([]);
  });

  it("goes on after a pass whose store could not be opened: the next call runs", async () => {
    await ingestFile(store.sql, sharedData("traces", "livesqlbench-adk", "single_turn_samples.json"));
    await write(store.sql, raw`UPDATE runs SET version = version + 1`); // every run's views missing
    // A pass an earlier test started is over first (one pass runs at a time in a process).
    const state = () => (globalThis as unknown as { metronViewsAhead?: { running?: boolean } }).metronViewsAhead;
    await vi.waitFor(() => expect(state()?.running ?? false).toBe(false), { timeout: 10_000 });
    const error = vi.spyOn(console, "error").mockImplementation(() => undefined);
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      viewsInBackground(() => Promise.reject(new Error("the store is gone")));
      await vi.waitFor(() => expect(error.mock.calls.flat().join("\n")).toMatch(/views ahead: the store is gone/));
      viewsInBackground(() => store.open());
      await vi.waitFor(async () => expect(await runsWithoutViews(store.sql)).toEqual([]), { timeout: 10_000 });
    } finally {
      error.mockRestore();
      log.mockRestore();
    }
  });

  it("after `metron import` of this store (Spider-de's databases, real traces), the new store's views are what its pages compute", async () => {
    vi.stubEnv("METRON_CODE_STAMP", codeStamp(ROOT));
    onTestFinished(() => void vi.unstubAllEnvs());
    const dir = mkdtempSync(path.join(os.tmpdir(), "metron-export-"));
    const target = tempDb();
    onTestFinished(() => {
      target.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });
    expect((await metron(store.env, ["export", dir, "--json"])).err).toBe("");
    const imported = await metron({ DATABASE_PATH: target.file }, ["import", dir, "--json"]);
    expect(imported.err).toBe("");
    expect(JSON.parse(imported.out).tables.find((t: { name: string }) => t.name === "databases").rows).toBe(20);
    const ids = (await many(target.sql, qb(target.sql).selectFrom("runs").select("id"))).map((r) => r.id);
    expect(ids.length).toBeGreaterThanOrEqual(2);
    expect(await runsWithoutViews(target.sql)).toEqual([]);
    for (const id of ids) {
      const kept = async (kind: string) =>
        JSON.parse(
          (
            await many(
              target.sql,
              qb(target.sql)
                .selectFrom("derived_cache")
                .select("value")
                .where("runs", "=", id)
                .where("kind", "=", kind),
            )
          )[0].value,
        );
      memory().clear(); // computed from the source store, nothing kept to read
      expect(await kept("units"), id).toEqual(await loadTraceUnits(store.sql, id));
      expect(await kept("directive-savings"), id).toEqual(await getDirectiveSavings(store.sql, id));
    }
  }, 120_000);

  it("a command whose views cannot be computed still succeeds and prints its report, with a warning", async () => {
    const target = tempDb();
    onTestFinished(() => target.cleanup());
    await write(target.sql, raw`DROP TABLE derived_cache`); // the views' table gone: computing them fails
    const file = sharedData("traces", "livesqlbench-adk", "single_turn_samples.json");
    const ingest = await metron({ DATABASE_PATH: target.file }, ["ingest", file, "--json"]);
    expect(ingest.code).toBe(0);
    expect(JSON.parse(ingest.out).inserted).toBe(3); // the report, printed after the views step
    expect(ingest.err).toMatch(/warning: the runs' views could not be computed ahead \(.*derived_cache.*\)/);
    expect((await many(target.sql, qb(target.sql).selectFrom("traces").select("id"))).length).toBe(3);
  }, 60_000);
});

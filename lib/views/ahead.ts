/**
 * A run's views computed ahead of its first view (issue 36): what a run page's first view computes (the per-trace
 * units behind its intervals and charts, its tool counts, its filters' facets, the directive-savings estimate),
 * stored in the derived cache (lib/db/queries/run-cache.ts) after the writes that change a run. A first view after
 * an ingest, an evaluation or a new build of Metron then reads them, and so does a comparison or the Experiments
 * overview of those runs (they start from the runs' units). The CLI computes them for the runs its ingest or
 * evaluation wrote; the server, in the background, for every run whose views are missing (`viewsInBackground`).
 * Both then compute the Experiments page's default views over every run (`precomputeExperimentViews`).
 */
import type { Sql } from "@/lib/db/sql";
import { many, qb } from "@/lib/db/typed";
import { inJsonArray } from "@/lib/db/typed-sql";
import { derivedStamp, hasDerived } from "@/lib/db/queries/run-cache";
import { listExperimentRunIds, loadOverview, type OverviewFilter } from "@/lib/db/queries/overview";
import { listTraceFacets } from "@/lib/db/queries/traces";
import { listRunToolCounts, loadTraceUnits } from "@/lib/db/queries/units";
import { getDirectiveSavings } from "@/lib/environment/directive-savings";
import { nonNegativeNumber } from "@/lib/config/env";

/** The kinds of derived data a run page reads first, as `cachedByRun` keys them (what `precomputeRunViews` makes). */
const RUN_VIEW_KINDS = ["units", "tools", "facets", "directive-savings"];

/**
 * Runs (all, or those of `runIds`) that lack one of their views for their current version and this build. A run
 * whose units alone a comparison or the Experiments overview computed still lacks the others. Archived runs are
 * left to their first view.
 */
export async function runsWithoutViews(sql: Sql, runIds?: string[]): Promise<string[]> {
  if (runIds && !runIds.length) return [];
  let q = qb(sql).selectFrom("runs").select(["id", "version", "created_at"]).where("archived_at", "is", null);
  if (runIds) q = q.where((eb) => inJsonArray(sql, eb, "id", runIds));
  const runs = await many(sql, q.orderBy("created_at", "desc").orderBy("id"));
  const kept = await many(
    sql,
    qb(sql)
      .selectFrom("derived_cache")
      .select(["kind", "runs", "versions"])
      .where((eb) => inJsonArray(sql, eb, "kind", RUN_VIEW_KINDS)),
  );
  const have = new Set(kept.map((k) => `${k.kind}\u0000${k.runs}\u0000${k.versions}`));
  return runs
    .filter((r) => {
      const stamp = derivedStamp([r]);
      return RUN_VIEW_KINDS.some((kind) => !have.has(`${kind}\u0000${r.id}\u0000${stamp}`));
    })
    .map((r) => r.id);
}

/** Computes and stores the views of each run, one run after another; returns how many runs it computed. */
export async function precomputeRunViews(
  sql: Sql,
  runIds: string[],
  opts: { pauseMs?: number; stop?: () => boolean } = {},
): Promise<number> {
  let done = 0;
  for (const id of runIds) {
    if (opts.stop?.()) break;
    // Stored before each call returns, and not kept in the pages' LRU.
    await loadTraceUnits(sql, id, "ahead");
    await listRunToolCounts(sql, id, "ahead");
    await listTraceFacets(sql, id, "ahead");
    await getDirectiveSavings(sql, id, "ahead");
    done++;
    // A page asked for meanwhile waits for one run at most.
    if (opts.pauseMs) await new Promise((r) => setTimeout(r, opts.pauseMs));
  }
  return done;
}

/**
 * The Experiments page's views a researcher opens without choosing anything: the default view (every run with a
 * dataset) and the same with its "runs without a dataset" box ticked. Their first request pools every run's units
 * and bootstraps each cell (0.6 s at 100k traces over 20 runs), so they are computed ahead too. A view of a saved
 * experiment or of one dataset is computed by its first request, then read from the store.
 */
const EXPERIMENT_VIEWS: readonly OverviewFilter[] = [{}, { withoutDataset: true }];

/**
 * Computes and stores the Experiments views (`EXPERIMENT_VIEWS`) that the store lacks for their runs' current
 * versions; returns how many it computed. Run after `precomputeRunViews`: a view starts from its runs' units.
 */
export async function precomputeExperimentViews(sql: Sql): Promise<number> {
  let done = 0;
  for (const filter of EXPERIMENT_VIEWS) {
    const runIds = await listExperimentRunIds(sql, filter);
    if (!runIds.length || (await hasDerived(sql, runIds, "overview"))) continue;
    await loadOverview(sql, filter, "ahead");
    // Counted once stored: a value JSON cannot carry exactly is kept in memory only, and its page computes it.
    if (await hasDerived(sql, runIds, "overview")) done++;
  }
  return done;
}

/**
 * What a pass ahead computed, in words: "computed the views of N run(s) ahead in S s", then ", and K view(s) of the
 * Experiments page" when it computed some; "computed K view(s) of the Experiments page ahead in S s" when no run's.
 */
export function viewsAheadSaid(runs: number, experimentViews: number, startedMs: number): string {
  const took = `ahead in ${((performance.now() - startedMs) / 1000).toFixed(1)} s`;
  const pages = `${experimentViews} view(s) of the Experiments page`;
  if (!runs) return `computed ${pages} ${took}`;
  return `computed the views of ${runs} run(s) ${took}${experimentViews ? `, and ${pages}` : ""}`;
}

const bg = globalThis as unknown as { metronViewsAhead?: { running?: boolean; again?: boolean } };

/**
 * In the server, in the background: the views of every run that lacks them, after `delayMs` (the start's own work
 * first: `METRON_VIEWS_AHEAD_DELAY_MS`, 20 s at a start) and with a pause between runs. Called again while it runs,
 * it looks once more when done. `METRON_VIEWS_AHEAD=0` turns it off (a run's first view computes them, as before).
 */
export function viewsInBackground(openStore: () => Sql | Promise<Sql>, delayMs = 0): void {
  if (process.env.METRON_VIEWS_AHEAD === "0") return;
  const state = (bg.metronViewsAhead ??= {});
  if (state.running) {
    state.again = true;
    return;
  }
  state.running = true;
  setTimeout(() => {
    void (async () => {
      let sql: Sql | null = null;
      try {
        sql = await openStore();
        do {
          state.again = false;
          const started = performance.now();
          const runs = await runsWithoutViews(sql);
          const done = await precomputeRunViews(sql, runs, { pauseMs: 20 });
          const views = await precomputeExperimentViews(sql);
          if (done || views) console.log(`metron: ${viewsAheadSaid(done, views, started)}`);
        } while (state.again);
      } catch (e) {
        console.error(`metron: computing runs' views ahead: ${(e as Error).message}`);
      } finally {
        state.running = false;
        await sql?.close();
      }
    })();
  }, delayMs).unref();
}

const quiet = globalThis as unknown as { metronViewsWhenQuiet?: NodeJS.Timeout };

/**
 * After writes that arrive as a stream (traces assembled from OTLP spans, one at a time while a harness runs): one
 * pass over the runs lacking their views once no write came for `quietMs` — not one per trace, each of which changes
 * its run's version.
 */
export function viewsWhenQuiet(openStore: () => Sql | Promise<Sql>, quietMs: number): void {
  if (process.env.METRON_VIEWS_AHEAD === "0") return;
  if (quiet.metronViewsWhenQuiet) clearTimeout(quiet.metronViewsWhenQuiet);
  quiet.metronViewsWhenQuiet = setTimeout(() => {
    quiet.metronViewsWhenQuiet = undefined;
    viewsInBackground(openStore);
  }, quietMs).unref();
}

/** `viewsWhenQuiet` after written batches of which some stored traces (the OTLP assembler's outcomes). */
export const viewsAfterStream =
  (openStore: () => Sql | Promise<Sql>, quietMs: number) =>
  (outcomes: { inserted: number }[]): void => {
    if (outcomes.some((o) => o.inserted > 0)) viewsWhenQuiet(openStore, quietMs);
  };

/**
 * After a curation in the browser (a rename, a dataset linked, tool roles, archive or unarchive), which moves the
 * run's version: a pass after `METRON_VIEWS_AFTER_CURATION_MS` (3 s), once the run page the action redraws has
 * computed and stored its own views, so that the pass finds them and computes only what no page asked for (the
 * views of an unarchived run the page did not draw, a comparison's runs).
 */
export function viewsAfterCuration(openStore: () => Sql | Promise<Sql>): void {
  viewsInBackground(openStore, nonNegativeNumber("METRON_VIEWS_AFTER_CURATION_MS", 3_000));
}

/** The delay before the server's first pass after a start (its warm-up and first requests first). */
export const viewsAheadDelayMs = () => nonNegativeNumber("METRON_VIEWS_AHEAD_DELAY_MS", 20_000);

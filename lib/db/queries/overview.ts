/** The Experiments page's data, on either engine (lib/db/sql.ts). */
import { cachedByRuns, type CacheMode } from "./run-cache";
import type { Sql } from "@/lib/db/sql";
import { sql as raw, type ExpressionBuilder } from "kysely";
import { binary, many, qb, type Tables } from "@/lib/db/typed";
import { inJsonArray, jsonText, jsonValue, runGroup } from "@/lib/db/typed-sql";
import type { RunAggregates } from "@/lib/metrics/run-metrics";
import type { RunStats, TraceUnit } from "@/lib/metrics/run-units";
import { buildOverview, cellStatsInParts, parseRunList, type OverviewGroup } from "@/lib/metrics/overview";
import { runAggregateColumns } from "@/lib/db/run-aggregates";
import { loadTraceUnits } from "./units";
import { manyAside, readsAside } from "@/lib/db/read-aside";

/** The event loop's next turn: requests that arrived meanwhile are answered before the work goes on. */
const nextTurn = () => new Promise((r) => setImmediate(r));
/** How long a computation given in parts holds the event loop at most, its last part aside, before a turn. */
const TURN_MS = 20;

/** Runs a computation given in parts (lib/metrics: `cellStatsInParts`), with a turn whenever TURN_MS have passed. */
export async function inTurns<R>(parts: Generator<void, R, void>): Promise<R> {
  let since = performance.now();
  for (;;) {
    const step = parts.next();
    if (step.done) return step.value;
    if (performance.now() - since >= TURN_MS) {
      await nextTurn();
      since = performance.now();
    }
  }
}

/** One cell of the Experiments matrix: the runs of one (dataset, model, system), pooled over their traces. */
export interface OverviewCellRow extends RunAggregates {
  group: string;
  datasetId: string | null;
  model: string;
  system: string;
  /** The pooled runs, as `id\u0001name\u0001simulated` joined by `\u0002` (split by the caller). */
  runList: string;
}

export interface OverviewFilter {
  /** A saved experiment's runs: exactly these, whatever else is stored. */
  runIds?: string[];
  /** Only this dataset's runs. */
  dataset?: string | null;
  /** Also runs without a dataset, and archived runs (hidden by default). */
  withoutDataset?: boolean;
  archived?: boolean;
  /** Also the runs of sweeps, which stay out of the default view (a sweep does not move a figure by itself). */
  sweeps?: boolean;
}

type RunsAs<A extends string> = Tables & { [K in A]: Tables["runs"] };

/** Runs that hold reruns only (the "Reruns" run, `config.reruns`): outside every experiment unless named in one. */
const notReruns = (sql: Sql, eb: ExpressionBuilder<RunsAs<"r">, "r">) =>
  eb.and([
    eb(eb.fn.coalesce(jsonValue(sql, eb, "r.config", "reruns"), raw.lit(0)), "=", 0),
    eb("r.name", "!=", "Reruns"),
  ]);

/** Runs a sweep made (`config.sweep`): shown when the view asks for them, or named by an experiment. */
const notSweeps = (sql: Sql, eb: ExpressionBuilder<RunsAs<"r">, "r">) =>
  eb(jsonText(sql, eb, "r.config", "sweep"), "is", null);

/** The ids of the runs a view covers. */
export async function listExperimentRunIds(sql: Sql, filter: OverviewFilter): Promise<string[]> {
  const q = qb(sql)
    .selectFrom("runs as r")
    .select("r.id")
    .$if(filter.runIds !== undefined, (w) => w.where((eb) => inJsonArray(sql, eb, "r.id", filter.runIds!)))
    .$if(filter.runIds === undefined, (w) =>
      w
        .where((eb) => notReruns(sql, eb))
        .$if(!filter.sweeps, (v) => v.where((eb) => notSweeps(sql, eb)))
        .$if(!filter.archived, (v) => v.where("r.archived_at", "is", null))
        .$if(!filter.withoutDataset, (v) => v.where("r.dataset_id", "is not", null)),
    )
    .$if(Boolean(filter.dataset), (w) => w.where("r.dataset_id", "=", filter.dataset!))
    .orderBy("r.created_at")
    .orderBy(binary(sql, "r.id"));
  return (await many(sql, q)).map((r) => r.id);
}

/**
 * The cells of a view: every (dataset, model, system) with the runs it pools and aggregates over all their traces,
 * ordered by dataset, model and system (code points). Over every run of a 1M-trace store the one GROUP BY took 2.5 s
 * on the server's thread, during which it answered no request: on SQLite it is read aside (a worker's connection,
 * lib/db/read-aside.ts), and where it cannot be (inside a transaction, an in-memory store, a worker that failed) one
 * cell's aggregates per statement, with a turn of the event loop between cells.
 */
export async function listOverviewCells(sql: Sql, runIds: string[]): Promise<OverviewCellRow[]> {
  if (runIds.length === 0) return [];
  // One statement (one snapshot of every cell) where it does not hold the event loop: read aside, or PostgreSQL's.
  if (sql.dialect === "postgres" || readsAside(sql)) return cellsInOneStatement(sql, runIds);
  const runs = await many(
    sql,
    qb(sql)
      .selectFrom("runs as r")
      .select((eb) => ["r.id", runGroup(eb, "r.dataset_id", "r.benchmark").as("grp"), "r.model", "r.system"])
      .where((eb) => inJsonArray(sql, eb, "r.id", runIds)),
  );
  const cells = new Map<string, string[]>();
  for (const r of runs) {
    const key = `${r.grp}\u0000${r.model}\u0000${r.system}`;
    const list = cells.get(key);
    if (list) list.push(r.id);
    else cells.set(key, [r.id]);
  }
  if (cells.size <= 1) return cellsInOneStatement(sql, runIds);
  const rows: OverviewCellRow[] = [];
  for (const ids of cells.values()) {
    rows.push(...(await cellsInOneStatement(sql, ids)));
    await nextTurn();
  }
  return rows.sort(
    (a, b) => byCodePoint(a.group, b.group) || byCodePoint(a.model, b.model) || byCodePoint(a.system, b.system),
  );
}

/** Code-point order, as the query orders (SQLite's binary collation, PostgreSQL's "C"). */
function byCodePoint(a: string, b: string): number {
  return a === b ? 0 : Buffer.compare(Buffer.from(a), Buffer.from(b));
}

/** The cells of these runs in one statement (`listOverviewCells` asks for one cell at a time). */
export async function cellsInOneStatement(sql: Sql, runIds: string[]): Promise<OverviewCellRow[]> {
  const q = qb(sql);
  const chr = (n: number) =>
    sql.dialect === "postgres" ? raw<string>`chr(${raw.lit(n)})` : raw<string>`char(${raw.lit(n)})`;
  const pooled = q.with("pooled", (db) =>
    db
      .selectFrom("runs as r")
      .selectAll("r")
      .select((eb) => runGroup(eb, "r.dataset_id", "r.benchmark").as("grp"))
      .where((eb) => inJsonArray(sql, eb, "r.id", runIds)),
  );
  type Pooled = Tables & { pooled: Tables["runs"] & { grp: string } };
  /** A pooled run as `id\u0001name\u0001simulated`. */
  const entry = (eb: ExpressionBuilder<Pooled & { x: Pooled["pooled"] }, "x">) =>
    raw<string>`${eb.ref("x.id")} || ${chr(1)} || ${eb.ref("x.name")} || ${chr(1)} || ${eb.fn.coalesce(jsonValue(sql, eb, "x.config", "simulated"), raw.lit(0))}`;
  // Read aside: on SQLite a worker's connection runs it, and the server answers other requests meanwhile.
  const rows = await manyAside(
    sql,
    pooled
      .selectFrom("pooled as p")
      .leftJoin("traces as t", "t.run_id", "p.id")
      .select((eb) => [
        "p.grp as group",
        eb.fn.min("p.dataset_id").as("datasetId"),
        "p.model",
        "p.system",
        // The pooled runs in creation order: an ordered aggregate on PostgreSQL, an ordered subquery on SQLite.
        (sql.dialect === "postgres"
          ? eb
              .selectFrom("pooled as x")
              .select((x) =>
                x.fn
                  .agg<string>("string_agg", [entry(x as never), chr(2)])
                  .orderBy("x.created_at")
                  .orderBy(binary(sql, "x.id"))
                  .as("list"),
              )
              .whereRef("x.grp", "=", "p.grp")
              .whereRef("x.model", "=", "p.model")
              .whereRef("x.system", "=", "p.system")
          : eb
              .selectFrom((db) =>
                db
                  .selectFrom("pooled as x2")
                  .selectAll("x2")
                  .whereRef("x2.grp", "=", "p.grp")
                  .whereRef("x2.model", "=", "p.model")
                  .whereRef("x2.system", "=", "p.system")
                  .orderBy("x2.created_at")
                  .orderBy("x2.id")
                  .as("x"),
              )
              .select((x) => x.fn.agg<string>("group_concat", [entry(x as never), chr(2)]).as("list"))
        ).as("runList"),
        ...runAggregateColumns(sql, eb),
      ])
      .groupBy(["p.grp", "p.model", "p.system"])
      .orderBy(binary(sql, "p.grp"))
      .orderBy(binary(sql, "p.model"))
      .orderBy(binary(sql, "p.system")),
  );
  return rows.map((r) => ({ ...r, runList: r.runList ?? "" }));
}

export interface SavedExperiment {
  id: string;
  name: string;
  datasetId: string | null;
  runIds: string[];
  createdAt: string;
}

export async function listExperiments(sql: Sql): Promise<SavedExperiment[]> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("experiments")
      .select(["id", "name", "dataset_id as datasetId", "run_ids as runIds", "created_at as createdAt"])
      .orderBy("created_at", "desc"),
  );
  return rows.map((e) => ({ ...e, runIds: JSON.parse(e.runIds) as string[] }));
}

export async function getExperiment(sql: Sql, id: string): Promise<SavedExperiment | undefined> {
  return (await listExperiments(sql)).find((e) => e.id === id);
}

/** A view of the Experiments page: the runs it covers and its groups (pooled cells, figures). */
export async function loadOverview(
  sql: Sql,
  filter: OverviewFilter,
  /** `"ahead"`: computed ahead of any page (lib/views/ahead.ts), stored before this returns. */
  mode: CacheMode = "page",
): Promise<{ runIds: string[]; groups: OverviewGroup[] }> {
  const runIds = await listExperimentRunIds(sql, filter);
  // Memoised by the runs' versions: a warm view is served without its GROUP BYs and bootstraps (issue 21).
  const groups = await cachedByRuns(
    sql,
    runIds,
    "overview",
    async () => {
      const cells = (await listOverviewCells(sql, runIds)).map(({ runList, datasetId: _d, ...c }) => {
        void _d;
        return { ...c, runs: parseRunList(runList) };
      });
      // One run's units per turn of the event loop, then each cell's figures with a turn every TURN_MS: pooling 200
      // runs (1M traces) and bootstrapping their cells took 2.8 s, during which the server answered no request, and a
      // cell of 80,000 traces alone holds it 0.1–0.3 s.
      const units = new Map<string, TraceUnit[]>();
      for (const id of runIds) {
        units.set(id, await loadTraceUnits(sql, id, mode));
        await nextTurn();
      }
      const unitsOf = (id: string) => units.get(id) ?? [];
      const stats = new Map<(typeof cells)[number], RunStats>();
      for (const c of cells) {
        stats.set(c, await inTurns(cellStatsInParts(c, unitsOf)));
        await nextTurn();
      }
      return buildOverview(cells, unitsOf, stats);
    },
    mode,
  );
  return { runIds, groups };
}

/** The runs of an Experiments view (a saved experiment's, or the filtered default); null for an unknown experiment. */
export async function viewRunIds(
  sql: Sql,
  p: { experiment: string | null; dataset: string | null; all: boolean; archived: boolean; sweeps: boolean },
): Promise<string[] | null> {
  if (p.experiment) return (await getExperiment(sql, p.experiment))?.runIds ?? null;
  return listExperimentRunIds(sql, {
    dataset: p.dataset,
    withoutDataset: p.all,
    archived: p.archived,
    sweeps: p.sweeps,
  });
}

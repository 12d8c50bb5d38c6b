/** The Experiments page's data, on either engine (lib/db/sql.ts). */
import { cachedByRuns } from "./run-cache";
import type { DialectSql, Sql } from "@/lib/db/sql";
import type { RunAggregates } from "@/lib/metrics/run-metrics";
import type { TraceUnit } from "@/lib/metrics/run-units";
import { buildOverview, parseRunList, type OverviewGroup } from "@/lib/metrics/overview";
import { runAggregates } from "./metrics-sql";
import { loadTraceUnits } from "./units";

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

/** Runs that hold reruns only (the "Reruns" run, `config.reruns`): outside every experiment unless named in one. */
const notReruns = (d: DialectSql) => `coalesce(${d.jsonValue("r.config", "reruns")}, 0) = 0 AND r.name != 'Reruns'`;

/** Runs a sweep made (`config.sweep`): shown when the view asks for them, or named by an experiment. */
const notSweeps = (d: DialectSql) => `${d.jsonText("r.config", "sweep")} IS NULL`;

/** The ids of the runs a view covers. */
export async function listExperimentRunIds(sql: Sql, filter: OverviewFilter): Promise<string[]> {
  const where: string[] = [];
  const params: string[] = [];
  if (filter.runIds) {
    where.push(`r.id IN (${filter.runIds.map(() => "?").join(",") || "NULL"})`);
    params.push(...filter.runIds);
  } else {
    where.push(notReruns(sql.d));
    if (!filter.sweeps) where.push(notSweeps(sql.d));
    if (!filter.archived) where.push("r.archived_at IS NULL");
    if (!filter.withoutDataset) where.push("r.dataset_id IS NOT NULL");
  }
  if (filter.dataset) {
    where.push("r.dataset_id = ?");
    params.push(filter.dataset);
  }
  return (
    await sql.all<{ id: string }>(
      `SELECT r.id FROM runs r WHERE ${where.join(" AND ")} ORDER BY r.created_at, ${sql.d.binary("r.id")}`,
      params,
    )
  ).map((r) => r.id);
}

/** The cells of a view: every (dataset, model, system) with the runs it pools and aggregates over all their traces. */
export async function listOverviewCells(sql: Sql, runIds: string[]): Promise<OverviewCellRow[]> {
  if (runIds.length === 0) return [];
  const { d } = sql;
  const placeholders = runIds.map(() => "?").join(",");
  const sep = (n: number) => d.char(n);
  const entry = `x.id || ${sep(1)} || x.name || ${sep(1)} || coalesce(${d.jsonValue("x.config", "simulated")}, 0)`;
  const same = "x.grp = p.grp AND x.model = p.model AND x.system = p.system";
  // The pooled runs in creation order: an ordered aggregate on PostgreSQL, an ordered subquery on SQLite.
  const runList =
    sql.dialect === "postgres"
      ? `(SELECT string_agg(${entry}, ${sep(2)} ORDER BY x.created_at, ${d.binary("x.id")}) FROM pooled x WHERE ${same})`
      : `(SELECT group_concat(${entry}, ${sep(2)}) FROM (SELECT * FROM pooled x2 WHERE x2.grp = p.grp AND x2.model = p.model AND x2.system = p.system ORDER BY x2.created_at, x2.id) x)`;
  return sql.all<OverviewCellRow>(
    `
    WITH pooled AS (SELECT r.*, coalesce(r.dataset_id, r.benchmark, '(no dataset)') AS grp FROM runs r WHERE r.id IN (${placeholders}))
    SELECT p.grp AS "group", min(p.dataset_id) AS datasetId, p.model, p.system,
      ${runList} AS runList,
      ${runAggregates(d)}
    FROM pooled p LEFT JOIN traces t ON t.run_id = p.id
    GROUP BY p.grp, p.model, p.system
    ORDER BY ${d.binary("p.grp")}, ${d.binary("p.model")}, ${d.binary("p.system")}`,
    runIds,
  );
}

export interface SavedExperiment {
  id: string;
  name: string;
  datasetId: string | null;
  runIds: string[];
  createdAt: string;
}

export async function listExperiments(sql: Sql): Promise<SavedExperiment[]> {
  return (
    await sql.all<Omit<SavedExperiment, "runIds"> & { runIds: string }>(
      "SELECT id, name, dataset_id AS datasetId, run_ids AS runIds, created_at AS createdAt FROM experiments ORDER BY created_at DESC",
    )
  ).map((e) => ({ ...e, runIds: JSON.parse(e.runIds) }));
}

export async function getExperiment(sql: Sql, id: string): Promise<SavedExperiment | undefined> {
  return (await listExperiments(sql)).find((e) => e.id === id);
}

/** A view of the Experiments page: the runs it covers and its groups (pooled cells, figures). */
export async function loadOverview(
  sql: Sql,
  filter: OverviewFilter,
): Promise<{ runIds: string[]; groups: OverviewGroup[] }> {
  const runIds = await listExperimentRunIds(sql, filter);
  // Memoised by the runs' versions: a warm view is served without its GROUP BYs and bootstraps (issue 21).
  const groups = await cachedByRuns(sql, runIds, "overview", async () => {
    const cells = (await listOverviewCells(sql, runIds)).map(({ runList, datasetId: _d, ...c }) => {
      void _d;
      return { ...c, runs: parseRunList(runList) };
    });
    const units = new Map<string, TraceUnit[]>();
    for (const id of runIds) units.set(id, await loadTraceUnits(sql, id));
    return buildOverview(cells, (id) => units.get(id) ?? []);
  });
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

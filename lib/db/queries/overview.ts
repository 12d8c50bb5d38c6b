import { memoByRuns } from "./run-cache";
import type { Db } from "@/lib/db/client";
import type { RunAggregates } from "@/lib/metrics/run-metrics";
import { buildOverview, parseRunList, type OverviewGroup } from "@/lib/metrics/overview";
import { RUN_AGGREGATES } from "./metrics-sql";
import { listTraceUnits } from "./units";

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
const NOT_RERUNS = "coalesce(json_extract(r.config, '$.reruns'), 0) = 0 AND r.name != 'Reruns'";

/** Runs a sweep made (`config.sweep`): shown when the view asks for them, or named by an experiment. */
const NOT_SWEEPS = "json_extract(r.config, '$.sweep') IS NULL";

/** The ids of the runs a view covers. */
export function listExperimentRunIds(db: Db, filter: OverviewFilter): string[] {
  const where: string[] = [];
  const params: string[] = [];
  if (filter.runIds) {
    where.push(`r.id IN (${filter.runIds.map(() => "?").join(",") || "NULL"})`);
    params.push(...filter.runIds);
  } else {
    where.push(NOT_RERUNS);
    if (!filter.sweeps) where.push(NOT_SWEEPS);
    if (!filter.archived) where.push("r.archived_at IS NULL");
    if (!filter.withoutDataset) where.push("r.dataset_id IS NOT NULL");
  }
  if (filter.dataset) {
    where.push("r.dataset_id = ?");
    params.push(filter.dataset);
  }
  return (
    db.$client
      .prepare(`SELECT r.id FROM runs r WHERE ${where.join(" AND ")} ORDER BY r.created_at, r.id`)
      .all(...params) as { id: string }[]
  ).map((r) => r.id);
}

/** The cells of a view: every (dataset, model, system) with the runs it pools and aggregates over all their traces. */
export function listOverviewCells(db: Db, runIds: string[]): OverviewCellRow[] {
  if (runIds.length === 0) return [];
  const placeholders = runIds.map(() => "?").join(",");
  return db.$client
    .prepare(
      `
    WITH pooled AS (SELECT r.*, coalesce(r.dataset_id, r.benchmark, '(no dataset)') AS grp FROM runs r WHERE r.id IN (${placeholders}))
    SELECT p.grp AS "group", p.dataset_id AS datasetId, p.model, p.system,
      (SELECT group_concat(x.id || char(1) || x.name || char(1) || coalesce(json_extract(x.config, '$.simulated'), 0), char(2)) FROM (SELECT * FROM pooled x2 WHERE x2.grp = p.grp AND x2.model = p.model AND x2.system = p.system ORDER BY x2.created_at, x2.id) x) AS runList,
      ${RUN_AGGREGATES}
    FROM pooled p LEFT JOIN traces t ON t.run_id = p.id
    GROUP BY p.grp, p.model, p.system
    ORDER BY p.grp, p.model, p.system`,
    )
    .all(...runIds) as OverviewCellRow[];
}

export interface SavedExperiment {
  id: string;
  name: string;
  datasetId: string | null;
  runIds: string[];
  createdAt: string;
}

export function listExperiments(db: Db): SavedExperiment[] {
  return (
    db.$client
      .prepare(
        "SELECT id, name, dataset_id AS datasetId, run_ids AS runIds, created_at AS createdAt FROM experiments ORDER BY created_at DESC",
      )
      .all() as (Omit<SavedExperiment, "runIds"> & { runIds: string })[]
  ).map((e) => ({ ...e, runIds: JSON.parse(e.runIds) }));
}

export function getExperiment(db: Db, id: string): SavedExperiment | undefined {
  return listExperiments(db).find((e) => e.id === id);
}

/** A view of the Experiments page: the runs it covers and its groups (pooled cells, figures). */
export function loadOverview(db: Db, filter: OverviewFilter): { runIds: string[]; groups: OverviewGroup[] } {
  const runIds = listExperimentRunIds(db, filter);
  // Memoised by the runs' versions: a warm view is served without its GROUP BYs and bootstraps (issue 21).
  const groups = memoByRuns(db, runIds, "overview", () => {
    const cells = listOverviewCells(db, runIds).map(({ runList, datasetId: _d, ...c }) => {
      void _d;
      return { ...c, runs: parseRunList(runList) };
    });
    return buildOverview(cells, (id) => listTraceUnits(db, id));
  });
  return { runIds, groups };
}

/** The runs of an Experiments view (a saved experiment's, or the filtered default); null for an unknown experiment. */
export function viewRunIds(
  db: Db,
  p: { experiment: string | null; dataset: string | null; all: boolean; archived: boolean; sweeps: boolean },
): string[] | null {
  if (p.experiment) return getExperiment(db, p.experiment)?.runIds ?? null;
  return listExperimentRunIds(db, {
    dataset: p.dataset,
    withoutDataset: p.all,
    archived: p.archived,
    sweeps: p.sweeps,
  });
}

import { sql } from "drizzle-orm";
import type { Db } from "@/lib/db/client";
import type { RunSortKey } from "@/lib/url/runs";
import { RUN_AGGREGATES, type RunAggregates } from "./metrics-sql";
import { memoByRun } from "./run-cache";

export interface RunListRow extends RunAggregates {
  id: string;
  name: string;
  system: string;
  model: string;
  datasetId: string | null;
  createdAt: string;
  archivedAt: string | null;
  simulated: number | null;
}

const ORDER: Record<RunSortKey, string> = {
  name: "r.name COLLATE NOCASE",
  system: "r.system COLLATE NOCASE",
  model: "r.model COLLATE NOCASE",
  traces: "traces",
  questions: "questions",
  correct: "CASE WHEN judged > 0 THEN 1.0 * correct / judged END",
  over: "CASE WHEN goldSum > 0 THEN 1.0 * (exploratoryWithGold - goldSum) / goldSum END",
  tokens: "inputTokens + outputTokens",
  created: "r.created_at",
};

export function listRuns(
  db: Db,
  opts: { sort: RunSortKey; dir: "asc" | "desc"; system?: string | null; model?: string | null; archived?: boolean },
): RunListRow[] {
  const where: string[] = opts.archived ? [] : ["r.archived_at IS NULL"];
  const params: string[] = [];
  if (opts.system) {
    where.push("r.system = ?");
    params.push(opts.system);
  }
  if (opts.model) {
    where.push("r.model = ?");
    params.push(opts.model);
  }
  const dir = opts.dir === "asc" ? "ASC" : "DESC";
  return db.$client
    .prepare(
      `
    SELECT r.id, r.name, r.system, r.model, r.dataset_id AS datasetId, r.created_at AS createdAt, r.archived_at AS archivedAt, json_extract(r.config, '$.simulated') AS simulated, ${RUN_AGGREGATES}
    FROM runs r LEFT JOIN traces t ON t.run_id = r.id
    ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
    GROUP BY r.id
    ORDER BY ${ORDER[opts.sort]} ${dir} NULLS LAST, r.id`,
    )
    .all(...params) as RunListRow[];
}

export function listRunFacets(db: Db): { systems: string[]; models: string[] } {
  const systems = db.all<{ v: string }>(sql`SELECT DISTINCT system AS v FROM runs ORDER BY v`).map((r) => r.v);
  const models = db.all<{ v: string }>(sql`SELECT DISTINCT model AS v FROM runs ORDER BY v`).map((r) => r.v);
  return { systems, models };
}

export function getRun(db: Db, id: string) {
  return db.query.runs.findFirst({ where: (r, { eq }) => eq(r.id, id) });
}

export function getRunAggregates(db: Db, runId: string): RunAggregates {
  return memoByRun(
    db,
    runId,
    "aggregates",
    () => db.$client.prepare(`SELECT ${RUN_AGGREGATES} FROM traces t WHERE t.run_id = ?`).get(runId) as RunAggregates,
  );
}

export function countOutcomes(db: Db, runId: string): { outcome: string; n: number }[] {
  return db.$client
    .prepare(
      "SELECT coalesce(ex_outcome, 'not evaluated yet') AS outcome, count(*) AS n FROM traces WHERE run_id = ? GROUP BY 1 ORDER BY 2 DESC",
    )
    .all(runId) as { outcome: string; n: number }[];
}

export function listRunChanges(db: Db, runId: string): { at: string; who: string; change: string }[] {
  return db.$client
    .prepare("SELECT created_at AS at, who, change FROM run_changes WHERE run_id = ? ORDER BY id DESC LIMIT 200")
    .all(runId) as { at: string; who: string; change: string }[];
}

/** The distinct models of the stored runs. */
export function listRunModels(db: Db): string[] {
  return (db.$client.prepare("SELECT DISTINCT model FROM runs ORDER BY model").all() as { model: string }[]).map(
    (r) => r.model,
  );
}

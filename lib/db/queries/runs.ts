import { findRow } from "@/lib/db/rows";
import { runs } from "@/lib/db/schema";
import type { DialectSql, Sql } from "@/lib/db/sql";
import type { RunSortKey } from "@/lib/url/runs";
import { runAggregates, type RunAggregates } from "./metrics-sql";
import { cachedByRun } from "./run-cache";

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

/** Sort keys over the listed rows (a subquery, so that PostgreSQL too can order by expressions of its columns). */
const ORDER: Record<RunSortKey, (d: DialectSql) => string> = {
  name: (d) => d.nocase("x.name"),
  system: (d) => d.nocase("x.system"),
  model: (d) => d.nocase("x.model"),
  traces: () => "x.traces",
  questions: () => "x.questions",
  correct: () => "CASE WHEN x.judged > 0 THEN 1.0 * x.correct / x.judged END",
  over: () => 'CASE WHEN x."goldSum" > 0 THEN 1.0 * (x."exploratoryWithGold" - x."goldSum") / x."goldSum" END',
  tokens: () => 'x."inputTokens" + x."outputTokens"',
  created: () => 'x."createdAt"',
};

export async function listRuns(
  sql: Sql,
  opts: { sort: RunSortKey; dir: "asc" | "desc"; system?: string | null; model?: string | null; archived?: boolean },
): Promise<RunListRow[]> {
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
  return sql.all<RunListRow>(
    `SELECT * FROM (
    SELECT r.id, r.name, r.system, r.model, r.dataset_id AS datasetId, r.created_at AS createdAt, r.archived_at AS archivedAt,
      ${sql.d.jsonValue("r.config", "simulated")} AS simulated, ${runAggregates(sql.d)}
    FROM runs r LEFT JOIN traces t ON t.run_id = r.id
    ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
    GROUP BY r.id) x
    ORDER BY ${ORDER[opts.sort](sql.d)} ${dir} NULLS LAST, ${sql.d.binary("x.id")}`,
    params,
  );
}

export async function listRunFacets(sql: Sql): Promise<{ systems: string[]; models: string[] }> {
  const col = async (c: string) =>
    (await sql.all<{ v: string }>(`SELECT ${c} AS v FROM runs GROUP BY ${c} ORDER BY ${sql.d.binary(c)}`)).map(
      (r) => r.v,
    );
  return { systems: await col("system"), models: await col("model") };
}

export function getRun(sql: Sql, id: string) {
  return findRow(sql, runs, "runs", "id = ?", [id]);
}

export function getRunAggregates(sql: Sql, runId: string): Promise<RunAggregates> {
  return cachedByRun(
    sql,
    runId,
    "aggregates",
    async () =>
      (await sql.get(`SELECT ${runAggregates(sql.d)} FROM traces t WHERE t.run_id = ?`, [runId])) as RunAggregates,
  );
}

export async function countOutcomes(sql: Sql, runId: string): Promise<{ outcome: string; n: number }[]> {
  return (await sql.all(
    "SELECT coalesce(ex_outcome, 'not evaluated yet') AS outcome, count(*) AS n FROM traces WHERE run_id = ? GROUP BY 1 ORDER BY 2 DESC",
    [runId],
  )) as { outcome: string; n: number }[];
}

export async function listRunChanges(sql: Sql, runId: string): Promise<{ at: string; who: string; change: string }[]> {
  return (await sql.all(
    "SELECT created_at AS at, who, change FROM run_changes WHERE run_id = ? ORDER BY id DESC LIMIT 200",
    [runId],
  )) as { at: string; who: string; change: string }[];
}

/** The distinct models of the stored runs. */
export async function listRunModels(sql: Sql): Promise<string[]> {
  return (
    (await sql.all(`SELECT model FROM runs GROUP BY model ORDER BY ${sql.d.binary("model")}`)) as { model: string }[]
  ).map((r) => r.model);
}

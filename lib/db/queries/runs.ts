import { findRow } from "@/lib/db/rows";
import { runs } from "@/lib/db/schema";
import type { DialectSql, Sql } from "@/lib/db/sql";
import type { RunSortKey } from "@/lib/url/runs";
import { runAggregates, type RunAggregates } from "./metrics-sql";
import { cachedByRun } from "./run-cache";
import { sql as raw } from "kysely";
import { binary, many, qb } from "@/lib/db/typed";

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
  const col = async (c: "system" | "model") =>
    (await many(sql, qb(sql).selectFrom("runs").select(c).groupBy(c).orderBy(binary(sql, c)))).map((r) => r[c]);
  const [systems, models] = await Promise.all([col("system"), col("model")]);
  return { systems, models };
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
  const q = qb(sql);
  const outcome = q.fn.coalesce("ex_outcome", raw.lit("not evaluated yet"));
  const rows = await many(
    sql,
    q
      .selectFrom("traces")
      .select([outcome.as("outcome"), q.fn.countAll<number>().as("n")])
      .where("run_id", "=", runId)
      .groupBy(outcome)
      .orderBy("n", "desc"),
  );
  return rows.map((r) => ({ outcome: r.outcome as string, n: Number(r.n) }));
}

export async function listRunChanges(sql: Sql, runId: string): Promise<{ at: string; who: string; change: string }[]> {
  return many(
    sql,
    qb(sql)
      .selectFrom("run_changes")
      .select(["created_at as at", "who", "change"])
      .where("run_id", "=", runId)
      .orderBy("id", "desc")
      .limit(200),
  );
}

/** The distinct models of the stored runs. */
export async function listRunModels(sql: Sql): Promise<string[]> {
  const q = qb(sql);
  return (await many(sql, q.selectFrom("runs").select("model").groupBy("model").orderBy(binary(sql, "model")))).map(
    (r) => r.model,
  );
}

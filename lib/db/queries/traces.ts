import type { TraceListRow } from "@/lib/metrics/trace-row";
import type { DialectSql, Sql } from "@/lib/db/sql";
import type { TraceFilters, TraceSortKey } from "@/lib/url/runs";
import { EFFECTIVE_CORRECT } from "./metrics-sql";
import { cachedByRun } from "./run-cache";

export type { TraceListRow } from "@/lib/metrics/trace-row";

// Question ids are text, but most benchmarks number them: sort numbers numerically, then text.
/** Numeric question ids in numeric order, then the others by text. */
const questionOrder = (q: DialectSql, d = "ASC") =>
  `${q.isInteger("question_id")} DESC, ${q.asInteger("question_id")} ${d}, ${q.binary("question_id")} ${d}, sample`;

const ORDER: Record<TraceSortKey, (q: DialectSql, dir: string) => string> = {
  question: (q, d) => questionOrder(q, d),
  db: (q, d) => `${q.binary("db_id")} ${d}, ${questionOrder(q)}`,
  steps: (q, d) => `step_count ${d}, ${questionOrder(q)}`,
  tools: (q, d) => `tool_call_count ${d}, ${questionOrder(q)}`,
  exploratory: (q, d) => `exploratory_calls ${d}, ${questionOrder(q)}`,
  over: (q, d) => `over_exploration ${d} NULLS LAST, ${questionOrder(q)}`,
  extra: (q, d) => `extra_table_count ${d} NULLS LAST, ${questionOrder(q)}`,
  empty: (q, d) => `empty_probe_count ${d} NULLS LAST, ${questionOrder(q)}`,
  tokens: (q, d) => `input_tokens + output_tokens ${d}, ${questionOrder(q)}`,
  outcome: (q, d) => `ex_outcome ${d} NULLS LAST, recorded_correct ${d} NULLS LAST, status ${d}, ${questionOrder(q)}`,
};

export async function listTraces(
  sql: Sql,
  runId: string,
  opts: { sort: TraceSortKey; dir: "asc" | "desc"; page: number; pageSize: number } & Partial<TraceFilters>,
): Promise<{ rows: TraceListRow[]; total: number }> {
  const dir = opts.dir === "asc" ? "ASC" : "DESC";
  const where = ["run_id = ?"];
  const params: (string | number)[] = [runId];
  if (opts.failing) where.push(`${EFFECTIVE_CORRECT} = 0`);
  if (opts.extra) where.push("extra_table_count > 0");
  if (opts.over) where.push("over_exploration > 0");
  if (opts.db) {
    where.push("db_id = ?");
    params.push(opts.db);
  }
  if (opts.difficulty) {
    where.push("difficulty = ?");
    params.push(opts.difficulty);
  }
  if (opts.traceIds) {
    where.push(sql.d.inJsonArray("id"));
    params.push(JSON.stringify(opts.traceIds));
  }
  if (opts.label) {
    where.push("EXISTS (SELECT 1 FROM labels l WHERE l.trace_id = t.id AND l.label = ?)");
    params.push(opts.label);
  }
  const clause = where.join(" AND ");
  const total = ((await sql.get(`SELECT count(*) AS n FROM traces t WHERE ${clause}`, params)) as { n: number }).n;
  const rows = (await sql.all(
    `
    SELECT id, run_id AS runId, question_id AS questionId, substr(question_text, 1, 300) AS questionText, sample, db_id AS dbId, difficulty, step_count AS stepCount,
      tool_call_count AS toolCallCount, CASE WHEN tokens_recorded = 1 THEN input_tokens + output_tokens END AS tokens, status, recorded_correct AS recordedCorrect,
      ex_outcome AS exOutcome, ex_error AS exError, exploratory_calls AS exploratoryCalls, gold_count AS goldCount,
      over_exploration AS overExploration, extra_table_count AS extraTableCount, empty_probe_count AS emptyProbeCount,
      (SELECT ${sql.d.distinctList("l.label")} FROM labels l WHERE l.trace_id = t.id) AS labels
    FROM traces t WHERE ${clause}
    ORDER BY ${ORDER[opts.sort](sql.d, dir)}
    LIMIT ? OFFSET ?`,
    [...params, opts.pageSize, (Math.max(1, opts.page) - 1) * opts.pageSize],
  )) as TraceListRow[];
  return { rows, total };
}

export async function listTraceFacets(
  sql: Sql,
  runId: string,
): Promise<{ databases: string[]; difficulties: string[] }> {
  const col = async (c: string) =>
    (
      (await sql.all(
        `SELECT ${c} AS v FROM traces WHERE run_id = ? AND ${c} IS NOT NULL GROUP BY ${c} ORDER BY ${sql.d.binary(c)}`,
        [runId],
      )) as { v: string }[]
    ).map((r) => r.v);
  return cachedByRun(sql, runId, "facets", async () => ({
    databases: await col("db_id"),
    difficulties: await col("difficulty"),
  }));
}

/** Question text, gold SQL and final SQL of a run's traces, by (question, sample): what CSV exports carry in full. */
export async function listTraceTexts(
  sql: Sql,
  runId: string,
): Promise<Map<string, { questionText: string | null; goldSql: string | null; finalSql: string | null }>> {
  const rows = (await sql.all(
    "SELECT question_id AS q, sample AS s, question_text AS questionText, gold_sql AS goldSql, final_sql AS finalSql FROM traces WHERE run_id = ?",
    [runId],
  )) as {
    q: string;
    s: number;
    questionText: string | null;
    goldSql: string | null;
    finalSql: string | null;
  }[];
  return new Map(rows.map(({ q, s, ...t }) => [`${q}\u0000${s}`, t]));
}

export async function traceExists(sql: Sql, traceId: string): Promise<boolean> {
  return (await sql.get("SELECT 1 AS one FROM traces WHERE id = ?", [traceId])) !== undefined;
}

/** Whether any of the runs has a trace of the question (the side-by-side view needs one). */
export async function anyRunHasQuestion(sql: Sql, runIds: string[], questionId: string): Promise<boolean> {
  for (const id of runIds)
    if (await sql.get("SELECT 1 AS one FROM traces WHERE run_id = ? AND question_id = ?", [id, questionId]))
      return true;
  return false;
}

/** A trace's final or gold SQL as recorded (the raw text, before any extraction), for `/api/traces/<id>/text`. */
export async function getTraceSql(
  sql: Sql,
  traceId: string,
  field: "final_sql" | "gold_sql",
): Promise<string | null | undefined> {
  const row = (await sql.get(`SELECT ${field} AS text FROM traces WHERE id = ?`, [traceId])) as
    { text: string | null } | undefined;
  return row ? row.text : undefined;
}

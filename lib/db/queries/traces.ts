import type { Db } from "@/lib/db/client";
import type { TraceFilters, TraceSortKey } from "@/lib/url/runs";
import { EFFECTIVE_CORRECT } from "./metrics-sql";
import { memoByRun } from "./run-cache";

export interface TraceListRow {
  id: string;
  runId: string;
  questionId: string;
  /** The first 300 characters of the question. */
  questionText: string | null;
  sample: number;
  dbId: string | null;
  difficulty: string | null;
  stepCount: number;
  toolCallCount: number;
  /** Null when the trace recorded no token usage. */
  tokens: number | null;
  /** The trace's labels (and its steps'), comma-separated; null when none. */
  labels: string | null;
  status: string;
  recordedCorrect: number | null;
  exOutcome: string | null;
  exError: string | null;
  exploratoryCalls: number;
  goldCount: number | null;
  overExploration: number | null;
  extraTableCount: number | null;
  emptyProbeCount: number | null;
}

// Question ids are text, but most benchmarks number them: sort numbers numerically, then text.
const questionOrder = (d = "ASC") =>
  `(CAST(question_id AS INTEGER) = question_id) DESC, CAST(question_id AS INTEGER) ${d}, question_id ${d}, sample`;
const QUESTION_ORDER = questionOrder();

const ORDER: Record<TraceSortKey, (dir: string) => string> = {
  question: (d) => questionOrder(d),
  db: (d) => `db_id ${d}, ${QUESTION_ORDER}`,
  steps: (d) => `step_count ${d}, ${QUESTION_ORDER}`,
  tools: (d) => `tool_call_count ${d}, ${QUESTION_ORDER}`,
  exploratory: (d) => `exploratory_calls ${d}, ${QUESTION_ORDER}`,
  over: (d) => `over_exploration ${d} NULLS LAST, ${QUESTION_ORDER}`,
  extra: (d) => `extra_table_count ${d} NULLS LAST, ${QUESTION_ORDER}`,
  empty: (d) => `empty_probe_count ${d} NULLS LAST, ${QUESTION_ORDER}`,
  tokens: (d) => `input_tokens + output_tokens ${d}, ${QUESTION_ORDER}`,
  outcome: (d) => `ex_outcome ${d} NULLS LAST, recorded_correct ${d} NULLS LAST, status ${d}, ${QUESTION_ORDER}`,
};

export function listTraces(
  db: Db,
  runId: string,
  opts: { sort: TraceSortKey; dir: "asc" | "desc"; page: number; pageSize: number } & Partial<TraceFilters>,
): { rows: TraceListRow[]; total: number } {
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
    where.push(`id IN (SELECT value FROM json_each(?))`);
    params.push(JSON.stringify(opts.traceIds));
  }
  if (opts.label) {
    where.push("EXISTS (SELECT 1 FROM labels l WHERE l.trace_id = t.id AND l.label = ?)");
    params.push(opts.label);
  }
  const clause = where.join(" AND ");
  const total = (
    db.$client.prepare(`SELECT count(*) AS n FROM traces t WHERE ${clause}`).get(...params) as { n: number }
  ).n;
  const rows = db.$client
    .prepare(
      `
    SELECT id, run_id AS runId, question_id AS questionId, substr(question_text, 1, 300) AS questionText, sample, db_id AS dbId, difficulty, step_count AS stepCount,
      tool_call_count AS toolCallCount, CASE WHEN tokens_recorded THEN input_tokens + output_tokens END AS tokens, status, recorded_correct AS recordedCorrect,
      ex_outcome AS exOutcome, ex_error AS exError, exploratory_calls AS exploratoryCalls, gold_count AS goldCount,
      over_exploration AS overExploration, extra_table_count AS extraTableCount, empty_probe_count AS emptyProbeCount,
      (SELECT group_concat(DISTINCT l.label) FROM labels l WHERE l.trace_id = t.id) AS labels
    FROM traces t WHERE ${clause}
    ORDER BY ${ORDER[opts.sort](dir)}
    LIMIT ? OFFSET ?`,
    )
    .all(...params, opts.pageSize, (Math.max(1, opts.page) - 1) * opts.pageSize) as TraceListRow[];
  return { rows, total };
}

export function listTraceFacets(db: Db, runId: string): { databases: string[]; difficulties: string[] } {
  const col = (c: string) =>
    (
      db.$client
        .prepare(`SELECT DISTINCT ${c} AS v FROM traces WHERE run_id = ? AND ${c} IS NOT NULL ORDER BY v`)
        .all(runId) as { v: string }[]
    ).map((r) => r.v);
  return memoByRun(db, runId, "facets", () => ({ databases: col("db_id"), difficulties: col("difficulty") }));
}

/** Question text, gold SQL and final SQL of a run's traces, by (question, sample): what CSV exports carry in full. */
export function listTraceTexts(
  db: Db,
  runId: string,
): Map<string, { questionText: string | null; goldSql: string | null; finalSql: string | null }> {
  const rows = db.$client
    .prepare(
      "SELECT question_id AS q, sample AS s, question_text AS questionText, gold_sql AS goldSql, final_sql AS finalSql FROM traces WHERE run_id = ?",
    )
    .all(runId) as {
    q: string;
    s: number;
    questionText: string | null;
    goldSql: string | null;
    finalSql: string | null;
  }[];
  return new Map(rows.map(({ q, s, ...t }) => [`${q}\u0000${s}`, t]));
}

export function traceExists(db: Db, traceId: string): boolean {
  return db.$client.prepare("SELECT 1 FROM traces WHERE id = ?").get(traceId) !== undefined;
}

/** Whether any of the runs has a trace of the question (the side-by-side view needs one). */
export function anyRunHasQuestion(db: Db, runIds: string[], questionId: string): boolean {
  const has = db.$client.prepare("SELECT 1 FROM traces WHERE run_id = ? AND question_id = ?");
  return runIds.some((id) => has.get(id, questionId) !== undefined);
}

/** A trace's final or gold SQL as recorded (the raw text, before any extraction), for `/api/traces/<id>/text`. */
export function getTraceSql(db: Db, traceId: string, field: "final_sql" | "gold_sql"): string | null | undefined {
  const row = db.$client.prepare(`SELECT ${field} AS text FROM traces WHERE id = ?`).get(traceId) as
    { text: string | null } | undefined;
  return row ? row.text : undefined;
}

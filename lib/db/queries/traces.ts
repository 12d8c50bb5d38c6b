import type { Db } from "@/lib/db/client";
import type { TraceSortKey } from "@/lib/url/runs";

export interface TraceListRow {
  id: string;
  runId: string;
  questionId: string;
  sample: number;
  dbId: string | null;
  difficulty: string | null;
  stepCount: number;
  toolCallCount: number;
  tokens: number;
  status: string;
  recordedCorrect: number | null;
  exOutcome: string | null;
  exError: string | null;
  exploratoryCalls: number;
  goldCount: number | null;
  overExploration: number | null;
  extraTableCount: number | null;
}

// Question ids are text, but most benchmarks number them: sort numbers numerically, then text.
const questionOrder = (d = "ASC") => `(CAST(question_id AS INTEGER) = question_id) DESC, CAST(question_id AS INTEGER) ${d}, question_id ${d}, sample`;
const QUESTION_ORDER = questionOrder();

const ORDER: Record<TraceSortKey, (dir: string) => string> = {
  question: (d) => questionOrder(d),
  db: (d) => `db_id ${d}, ${QUESTION_ORDER}`,
  steps: (d) => `step_count ${d}, ${QUESTION_ORDER}`,
  tools: (d) => `tool_call_count ${d}, ${QUESTION_ORDER}`,
  exploratory: (d) => `exploratory_calls ${d}, ${QUESTION_ORDER}`,
  over: (d) => `over_exploration ${d} NULLS LAST, ${QUESTION_ORDER}`,
  extra: (d) => `extra_table_count ${d} NULLS LAST, ${QUESTION_ORDER}`,
  tokens: (d) => `input_tokens + output_tokens ${d}, ${QUESTION_ORDER}`,
  outcome: (d) => `ex_outcome ${d} NULLS LAST, recorded_correct ${d} NULLS LAST, status ${d}, ${QUESTION_ORDER}`,
};

export function listTraces(db: Db, runId: string, opts: { sort: TraceSortKey; dir: "asc" | "desc"; page: number; pageSize: number }): { rows: TraceListRow[]; total: number } {
  const dir = opts.dir === "asc" ? "ASC" : "DESC";
  const total = (db.$client.prepare("SELECT count(*) AS n FROM traces WHERE run_id = ?").get(runId) as { n: number }).n;
  const rows = db.$client.prepare(`
    SELECT id, run_id AS runId, question_id AS questionId, sample, db_id AS dbId, difficulty, step_count AS stepCount,
      tool_call_count AS toolCallCount, input_tokens + output_tokens AS tokens, status, recorded_correct AS recordedCorrect,
      ex_outcome AS exOutcome, ex_error AS exError, exploratory_calls AS exploratoryCalls, gold_count AS goldCount,
      over_exploration AS overExploration, extra_table_count AS extraTableCount
    FROM traces WHERE run_id = ?
    ORDER BY ${ORDER[opts.sort](dir)}
    LIMIT ? OFFSET ?`).all(runId, opts.pageSize, (Math.max(1, opts.page) - 1) * opts.pageSize) as TraceListRow[];
  return { rows, total };
}

import type { Db } from "@/lib/db/client";
import type { TraceUnit } from "@/lib/metrics/run-units";
import { EFFECTIVE_CORRECT } from "./metrics-sql";
import { memoByRun } from "./run-cache";

/** The small per-trace columns that intervals, breakdowns and comparisons need (memoised per run version). */
export function listTraceUnits(db: Db, runId: string): TraceUnit[] {
  return memoByRun(db, runId, "units", () => readTraceUnits(db, runId));
}

function readTraceUnits(db: Db, runId: string): TraceUnit[] {
  return db.$client
    .prepare(
      `SELECT question_id AS questionId, sample, db_id AS dbId, difficulty, ${EFFECTIVE_CORRECT} AS correct,
      exploratory_calls AS exploratory, gold_count AS goldCount, extra_table_count AS extraTables, input_tokens AS inputTokens,
      output_tokens AS outputTokens, tokens_recorded AS tokensRecorded, substr(question_text, 1, 160) AS questionText, coalesce(cost_usd, cost_computed_usd) AS cost, ex_result_hash AS resultKey
    FROM traces t WHERE run_id = ?`,
    )
    .all(runId) as TraceUnit[];
}

export function listRunToolCounts(db: Db, runId: string): { tool: string; role: string; calls: number }[] {
  return memoByRun(
    db,
    runId,
    "tools",
    () =>
      db.$client
        .prepare("SELECT tool, role, calls FROM run_tool_counts WHERE run_id = ? ORDER BY calls DESC, tool")
        .all(runId) as { tool: string; role: string; calls: number }[],
  );
}

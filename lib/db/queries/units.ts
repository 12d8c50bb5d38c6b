import type { DialectSql, Sql } from "@/lib/db/sql";
import type { TraceUnit } from "@/lib/metrics/run-units";
import { EFFECTIVE_CORRECT } from "./metrics-sql";
import { cachedByRun } from "./run-cache";
import { binary, many, qb } from "@/lib/db/typed";

/** The small per-trace columns that intervals, breakdowns and comparisons need (memoised per run version). */
export function loadTraceUnits(sql: Sql, runId: string): Promise<TraceUnit[]> {
  return cachedByRun(sql, runId, "units", () => sql.all<TraceUnit>(traceUnitsSql(sql.d), [runId]));
}

/** In question order (the bootstraps resample questions in the order they first appear), on both engines. */
const traceUnitsSql = (d: DialectSql) =>
  `SELECT question_id AS questionId, sample, db_id AS dbId, difficulty, ${EFFECTIVE_CORRECT} AS correct,
      exploratory_calls AS exploratory, gold_count AS goldCount, extra_table_count AS extraTables, input_tokens AS inputTokens,
      output_tokens AS outputTokens, tokens_recorded AS tokensRecorded, substr(question_text, 1, 160) AS questionText, coalesce(cost_usd, cost_computed_usd) AS cost, ex_result_hash AS resultKey
    FROM traces t WHERE run_id = ? ORDER BY ${d.binary("question_id")}, sample`;

export function listRunToolCounts(sql: Sql, runId: string): Promise<{ tool: string; role: string; calls: number }[]> {
  return cachedByRun(sql, runId, "tools", () =>
    many(
      sql,
      qb(sql)
        .selectFrom("run_tool_counts")
        .select(["tool", "role", "calls"])
        .where("run_id", "=", runId)
        .orderBy("calls", "desc")
        .orderBy(binary(sql, "tool")),
    ),
  );
}

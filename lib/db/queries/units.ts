import type { Sql } from "@/lib/db/sql";
import type { TraceUnit } from "@/lib/metrics/run-units";
import { effectiveCorrect } from "@/lib/db/typed-sql";
import { cachedByRun, type CacheMode } from "./run-cache";
import { binary, many, qb } from "@/lib/db/typed";

/** The small per-trace columns that intervals, breakdowns and comparisons need (memoised per run version). */
export function loadTraceUnits(sql: Sql, runId: string, mode?: CacheMode): Promise<TraceUnit[]> {
  // In question order (the bootstraps resample questions in the order they first appear), on both engines.
  return cachedByRun(
    sql,
    runId,
    "units",
    () =>
      many(
        sql,
        qb(sql)
          .selectFrom("traces as t")
          .select((eb) => [
            "t.question_id as questionId",
            "t.sample",
            "t.db_id as dbId",
            "t.difficulty",
            effectiveCorrect(eb, "t.ex_outcome", "t.recorded_correct").as("correct"),
            "t.exploratory_calls as exploratory",
            "t.gold_count as goldCount",
            "t.extra_table_count as extraTables",
            "t.input_tokens as inputTokens",
            "t.output_tokens as outputTokens",
            "t.tokens_recorded as tokensRecorded",
            eb.fn<string | null>("substr", ["t.question_text", eb.lit(1), eb.lit(160)]).as("questionText"),
            eb.fn.coalesce("t.cost_usd", "t.cost_computed_usd").as("cost"),
            "t.ex_result_hash as resultKey",
          ])
          .where("t.run_id", "=", runId)
          .orderBy(binary(sql, "t.question_id"))
          .orderBy("t.sample"),
      ),
    mode,
  );
}

export function listRunToolCounts(
  sql: Sql,
  runId: string,
  mode?: CacheMode,
): Promise<{ tool: string; role: string; calls: number }[]> {
  return cachedByRun(
    sql,
    runId,
    "tools",
    () =>
      many(
        sql,
        qb(sql)
          .selectFrom("run_tool_counts")
          .select(["tool", "role", "calls"])
          .where("run_id", "=", runId)
          .orderBy("calls", "desc")
          .orderBy(binary(sql, "tool")),
      ),
    mode,
  );
}

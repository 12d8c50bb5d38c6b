import { dialects, type DialectSql } from "@/lib/db/sql";
import { JUDGED_OUTCOMES } from "@/lib/db/typed-sql";

export type { RunAggregates } from "@/lib/metrics/run-metrics";

/**
 * SQL fragments for run-level aggregates over the per-trace metric columns (definitions: docs/metrics.md).
 * A trace's correctness is its re-evaluated outcome when it was evaluated, else its recorded one.
 */

/** Outcomes that count in execution accuracy's denominator; gold errors and unevaluated traces do not. */
export const EX_JUDGED = `(${JUDGED_OUTCOMES.map((o) => `'${o}'`).join(",")})`;

/** A gold error leaves the trace out; a trace not (or not yet) evaluated falls back to its recorded outcome. */
export const EFFECTIVE_CORRECT = `(CASE WHEN t.ex_outcome = 'correct' THEN 1 WHEN t.ex_outcome IN ${EX_JUDGED} THEN 0 WHEN t.ex_outcome = 'gold_error' THEN NULL ELSE t.recorded_correct END)`;

/** The aggregates in the dialect of a store (PostgreSQL and SQLite differ in JSON paths only). */
export const runAggregates = (d: DialectSql) => `
  count(t.id) AS traces,
  count(DISTINCT t.question_id) AS questions,
  sum(CASE WHEN t.ex_outcome IN ${EX_JUDGED} THEN 1 ELSE 0 END) AS exJudged,
  sum(CASE WHEN t.ex_outcome = 'correct' THEN 1 ELSE 0 END) AS exCorrect,
  count(${EFFECTIVE_CORRECT}) AS judged,
  coalesce(sum(${EFFECTIVE_CORRECT}), 0) AS correct,
  count(t.recorded_correct) AS recordedJudged,
  coalesce(sum(t.recorded_correct), 0) AS recordedCorrect,
  sum(CASE WHEN t.gold_count IS NOT NULL THEN t.exploratory_calls END) AS exploratoryWithGold,
  sum(t.gold_count) AS goldSum,
  CASE WHEN count(t.extra_table_count) > 0 THEN sum(CASE WHEN ${EFFECTIVE_CORRECT} = 0 AND t.extra_table_count > 0 THEN 1 ELSE 0 END) END AS failedWithExtra,
  coalesce(sum(CASE WHEN t.tokens_recorded = 1 THEN t.input_tokens END), 0) AS inputTokens,
  coalesce(sum(CASE WHEN t.tokens_recorded = 1 THEN t.output_tokens END), 0) AS outputTokens,
  coalesce(sum(t.tokens_recorded), 0) AS tokensRecorded,
  coalesce(sum(CASE WHEN t.ex_outcome = 'gold_error' THEN 1 ELSE 0 END), 0) AS goldErrors,
  sum(coalesce(t.cost_usd, t.cost_computed_usd)) AS cost,
  sum(${d.jsonNumber("t.directives", "overhead.cost_usd")}) AS directiveOverheadCost,
  sum(CASE WHEN coalesce(t.cost_usd, t.cost_computed_usd) IS NULL THEN 1 ELSE 0 END) AS unpricedTraces,
  coalesce(sum(t.link_tp), 0) AS linkTruePositive,
  coalesce(sum(t.link_pred), 0) AS linkPredicted,
  coalesce(sum(t.link_gold), 0) AS linkGold,
  sum(t.empty_probe_count) AS emptyProbes,
  count(t.empty_probe_count) AS probeTraces,
  avg(t.directive_recall) AS directiveRecall,
  avg(t.directive_flag_rate) AS directiveFlagRate`;

export const RUN_AGGREGATES = runAggregates(dialects.sqlite);

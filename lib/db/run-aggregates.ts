/**
 * A run's aggregates over the per-trace metric columns (definitions: docs/metrics.md), as typed selections over the
 * traces `t` of a query (lib/db/typed.ts): the home page's runs, a run page's summary, the Experiments cells. A
 * trace's correctness is its re-evaluated outcome when it was evaluated, else its recorded one (effectiveCorrect).
 */
import { sql as raw, type Expression, type ExpressionBuilder } from "kysely";
import type { Sql } from "@/lib/db/sql";
import type { Tables } from "@/lib/db/typed";
import { effectiveCorrect, JUDGED_OUTCOMES, jsonNumber } from "@/lib/db/typed-sql";

export type WithTraces = Tables & { t: Tables["traces"] };

/**
 * The selections, aliased as `RunAggregates` names. Counts are 0 over no traces; sums of a measured value are NULL
 * there (nothing was measured), as SQL gives them.
 */
export function runAggregateColumns<DB, TB extends keyof DB>(sql: Sql, eb: ExpressionBuilder<DB, TB>) {
  const e = eb as unknown as ExpressionBuilder<WithTraces, "t">;
  const one = raw<number>`1`;
  const zero = raw<number>`0`;
  const correct = effectiveCorrect(e, "t.ex_outcome", "t.recorded_correct");
  const ifThen = (cond: Expression<unknown>) =>
    e
      .case()
      .when(cond as Expression<boolean>)
      .then(one)
      .else(zero)
      .end();
  const sum = (x: Expression<unknown>) => e.fn.sum<number | null>(x as Expression<number>);
  const sumOr0 = (x: Expression<unknown>) => e.fn.coalesce(sum(x), zero);
  const count = (x: Expression<unknown>) => e.fn.count<number>(x as Expression<number>);
  const recordedTokens = (c: "t.input_tokens" | "t.output_tokens") =>
    e.case().when("t.tokens_recorded", "=", 1).then(e.ref(c)).end();
  const cost = e.fn.coalesce("t.cost_usd", "t.cost_computed_usd");
  return [
    count(e.ref("t.id")).as("traces"),
    e.fn.count<number>("t.question_id").distinct().as("questions"),
    sumOr0(ifThen(e("t.ex_outcome", "in", [...JUDGED_OUTCOMES]))).as("exJudged"),
    sumOr0(ifThen(e("t.ex_outcome", "=", "correct"))).as("exCorrect"),
    count(correct).as("judged"),
    sumOr0(correct).as("correct"),
    count(e.ref("t.recorded_correct")).as("recordedJudged"),
    sumOr0(e.ref("t.recorded_correct")).as("recordedCorrect"),
    sum(e.case().when("t.gold_count", "is not", null).then(e.ref("t.exploratory_calls")).end()).as(
      "exploratoryWithGold",
    ),
    sum(e.ref("t.gold_count")).as("goldSum"),
    e
      .case()
      .when(count(e.ref("t.extra_table_count")), ">", 0)
      .then(sum(ifThen(e.and([e(correct, "=", 0), e("t.extra_table_count", ">", 0)]))))
      .end()
      .as("failedWithExtra"),
    sumOr0(recordedTokens("t.input_tokens")).as("inputTokens"),
    sumOr0(recordedTokens("t.output_tokens")).as("outputTokens"),
    sumOr0(e.ref("t.tokens_recorded")).as("tokensRecorded"),
    sumOr0(ifThen(e("t.ex_outcome", "=", "gold_error"))).as("goldErrors"),
    sum(cost).as("cost"),
    sum(jsonNumber(sql, e, "t.directives", "overhead.cost_usd")).as("directiveOverheadCost"),
    // traces, not joined rows: a run without traces (LEFT JOIN, one row of NULLs) has none unpriced
    e(count(e.ref("t.id")), "-", count(cost)).as("unpricedTraces"),
    sumOr0(e.ref("t.link_tp")).as("linkTruePositive"),
    sumOr0(e.ref("t.link_pred")).as("linkPredicted"),
    sumOr0(e.ref("t.link_gold")).as("linkGold"),
    sum(e.ref("t.empty_probe_count")).as("emptyProbes"),
    count(e.ref("t.empty_probe_count")).as("probeTraces"),
    e.fn.avg<number | null>("t.directive_recall").as("directiveRecall"),
    e.fn.avg<number | null>("t.directive_flag_rate").as("directiveFlagRate"),
  ];
}

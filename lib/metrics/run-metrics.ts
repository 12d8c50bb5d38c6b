/**
 * Run-level metrics from the aggregates of per-trace columns (the SQL is in lib/db/queries/metrics-sql.ts).
 * Over-exploration follows Sophrosyne: (Σ exploratory − Σ gold) / Σ gold over the traces whose gold count is
 * known. Execution accuracy counts correct over judged traces (correct, wrong result, prediction error,
 * time-out, no submission); gold errors and unevaluated traces are left out.
 */

export interface RunAggregates {
  traces: number;
  questions: number;
  exJudged: number;
  exCorrect: number;
  recordedJudged: number;
  recordedCorrect: number;
  exploratoryWithGold: number | null;
  goldSum: number | null;
  failedWithExtra: number;
  inputTokens: number;
  outputTokens: number;
  cost: number | null;
  unpricedTraces: number;
  directiveRecall: number | null;
  directiveFlagRate: number | null;
}

/** Execution accuracy: re-evaluated when any trace was evaluated, else recorded; null when neither exists. */
export function accuracyOf(a: Pick<RunAggregates, "exJudged" | "exCorrect" | "recordedJudged" | "recordedCorrect">): { share: number; n: number; source: "re-evaluated" | "recorded" } | null {
  if (a.exJudged > 0) return { share: a.exCorrect / a.exJudged, n: a.exJudged, source: "re-evaluated" };
  if (a.recordedJudged > 0) return { share: a.recordedCorrect / a.recordedJudged, n: a.recordedJudged, source: "recorded" };
  return null;
}

/** Over-exploration of a set of traces: (Σ exploratory − Σ gold) / Σ gold, over traces whose gold count is known. */
export function overExplorationOf(a: Pick<RunAggregates, "exploratoryWithGold" | "goldSum">): number | null {
  if (!a.goldSum) return null;
  return ((a.exploratoryWithGold ?? 0) - a.goldSum) / a.goldSum;
}

/** The outcomes of execution accuracy (docs/metrics.md). Pure. */
export const exOutcomes = [
  "correct",
  "wrong_result",
  "pred_error",
  "gold_error",
  "timeout",
  "no_submission",
  "not_evaluated",
] as const;
export type ExOutcome = (typeof exOutcomes)[number];

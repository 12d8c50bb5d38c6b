import { JUDGED_OUTCOMES } from "@/lib/db/typed-sql";

export type { RunAggregates } from "@/lib/metrics/run-metrics";

/**
 * The effective outcome as SQL text, for the queries not yet typed (lib/agent, lib/search); typed queries take
 * `effectiveCorrect` (lib/db/typed-sql.ts) and the run aggregates `runAggregateColumns` (run-aggregates.ts).
 * A trace's correctness is its re-evaluated outcome when it was evaluated, else its recorded one (docs/metrics.md).
 */

/** Outcomes that count in execution accuracy's denominator; gold errors and unevaluated traces do not. */
export const EX_JUDGED = `(${JUDGED_OUTCOMES.map((o) => `'${o}'`).join(",")})`;

/** A gold error leaves the trace out; a trace not (or not yet) evaluated falls back to its recorded outcome. */
export const EFFECTIVE_CORRECT = `(CASE WHEN t.ex_outcome = 'correct' THEN 1 WHEN t.ex_outcome IN ${EX_JUDGED} THEN 0 WHEN t.ex_outcome = 'gold_error' THEN NULL ELSE t.recorded_correct END)`;

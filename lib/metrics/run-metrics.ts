import { SIMULATED_NOTE, type ExportTable } from "./table-export";
import { schemaLinking } from "./stats";

/**
 * Run-level metrics from the aggregates of per-trace columns (the SQL is in lib/db/queries/run-aggregates.ts).
 * Over-exploration follows Sophrosyne: (Σ exploratory − Σ gold) / Σ gold over the traces whose gold count is
 * known. Execution accuracy counts correct over judged traces (correct, wrong result, prediction error,
 * time-out, no submission); gold errors and unevaluated traces are left out.
 */

export interface RunAggregates {
  traces: number;
  questions: number;
  /** Traces with a known outcome (re-evaluated, else recorded) and how many of them are correct. */
  judged: number;
  correct: number;
  exJudged: number;
  exCorrect: number;
  recordedJudged: number;
  recordedCorrect: number;
  exploratoryWithGold: number | null;
  goldSum: number | null;
  /** Null when no trace's extra tables are known (no gold tables). */
  failedWithExtra: number | null;
  /** Σ tokens over the traces that recorded usage; `tokensRecorded` counts them (0: tokens unknown, not 0). */
  inputTokens: number;
  outputTokens: number;
  tokensRecorded: number;
  /** Traces whose gold SQL failed at evaluation: out of EX's denominator. */
  goldErrors: number;
  cost: number | null;
  /** Σ directives.overhead.cost_usd: what computing the directives cost, beside the agent's own cost. */
  directiveOverheadCost: number | null;
  unpricedTraces: number;
  directiveRecall: number | null;
  directiveFlagRate: number | null;
  /** Σ empty-result probes over the traces that recorded probe results (SDE-SQL), and how many traces did. */
  emptyProbes: number | null;
  probeTraces: number;
  linkTruePositive: number;
  linkPredicted: number;
  linkGold: number;
}

/**
 * Execution accuracy over traces with a known outcome: a trace's re-evaluated outcome when it has one, else its
 * recorded one (gold errors are left out). The source says which kind of outcome the number rests on.
 */
export function accuracyOf(
  a: Pick<RunAggregates, "judged" | "correct" | "exJudged">,
): { share: number; n: number; source: "re-evaluated" | "recorded" | "re-evaluated + recorded" } | null {
  if (a.judged === 0) return null;
  const source = a.exJudged === 0 ? "recorded" : a.exJudged >= a.judged ? "re-evaluated" : "re-evaluated + recorded";
  return { share: a.correct / a.judged, n: a.judged, source };
}

/** Over-exploration of a set of traces: (Σ exploratory − Σ gold) / Σ gold, over traces whose gold count is known. */
export function overExplorationOf(a: Pick<RunAggregates, "exploratoryWithGold" | "goldSum">): number | null {
  if (!a.goldSum) return null;
  return ((a.exploratoryWithGold ?? 0) - a.goldSum) / a.goldSum;
}

export const ROLE_LABELS: Record<string, string> = {
  schema_listing: "schema listing",
  schema_exploration: "schema exploration",
  data_inspection: "data inspection",
  execution: "execution",
  submission: "submission",
  other: "other",
};

/** Table-level schema linking, micro-averaged over traces with known gold and final tables (FlexSQL; stats.ts). */
export function linkingOf(a: Pick<RunAggregates, "linkTruePositive" | "linkPredicted" | "linkGold">): {
  precision: number | null;
  recall: number | null;
  f1: number | null;
} {
  return schemaLinking([{ truePositive: a.linkTruePositive, predicted: a.linkPredicted, gold: a.linkGold }]);
}

/** A run's summary as a one-row table, for LaTeX and Markdown. */
export function runSummaryTable(
  run: { name: string; system: string; model: string; simulated: boolean },
  a: RunAggregates,
): ExportTable {
  const ex = accuracyOf(a);
  return {
    caption: `${run.simulated ? `${SIMULATED_NOTE} ` : ""}${run.name}: ${run.system} with ${run.model}; EX over ${ex?.n ?? 0} judged traces (${ex?.source ?? "none judged"}), over-exploration (Σ exploratory − Σ gold) / Σ gold over ${a.goldSum ?? 0} gold tables, of ${a.traces} traces.`,
    label: `tab:${run.name}`,
    columns: [
      { label: "System", kind: "text" },
      { label: "Model", kind: "text" },
      { label: "EX", kind: "percent" },
      { label: "Over-exploration", kind: "percent" },
      { label: "Failed w/ extra tables", kind: "count" },
      { label: "Input tokens", kind: "count" },
      { label: "Output tokens", kind: "count" },
      { label: "Cost", kind: "usd" },
      { label: "n", kind: "count" },
    ],
    rows: [
      [
        run.system,
        run.model,
        { value: ex?.share ?? null },
        { value: overExplorationOf(a) },
        { value: a.failedWithExtra },
        { value: a.tokensRecorded ? a.inputTokens : null },
        { value: a.tokensRecorded ? a.outputTokens : null },
        { value: a.cost },
        { value: a.traces },
      ],
    ],
  };
}

/** The rows of Metron's CSV exports, shared by the export routes and their tests (pure). */
import type { TraceListRow } from "./trace-row";
import type { buildOverview } from "./overview";
import { boundsOf } from "./stats";

export interface Table {
  columns: string[];
  rows: unknown[][];
}

export function overviewTable(groups: ReturnType<typeof buildOverview>): Table {
  return {
    columns: [
      "dataset",
      "model",
      "system",
      "runs",
      "run_ids",
      "questions",
      // The cell's EX: the mean over questions of each question's share of correct judged traces (docs/metrics.md);
      // a run's own page and traces.csv count correct over judged traces instead. Named apart (issue 30).
      "ex_mean_over_questions",
      "ex_mean_over_questions_low",
      "ex_mean_over_questions_high",
      "over_exploration",
      "over_low",
      "over_high",
      "failed_with_extra_tables",
      "input_tokens",
      "output_tokens",
      "cost_usd",
      "directive_overhead_usd",
      "directive_recall",
    ],
    rows: groups.flatMap((g) =>
      g.models.flatMap((m) =>
        g.systems.flatMap((s) =>
          [g.cells[m]?.[s]]
            .filter((c) => c !== undefined)
            .map((c) => [
              g.group,
              m,
              s,
              c.runs.map((r) => r.name).join(" + "),
              c.runs.map((r) => r.id).join(" "),
              c.stats.questions,
              c.stats.ex?.estimate,
              boundsOf(c.stats.ex).low,
              boundsOf(c.stats.ex).high,
              c.stats.over?.estimate,
              boundsOf(c.stats.over).low,
              boundsOf(c.stats.over).high,
              c.stats.failedWithExtra,
              c.stats.inputTokens,
              c.stats.outputTokens,
              c.aggregates.cost,
              c.aggregates.directiveOverheadCost,
              c.aggregates.directiveRecall,
            ]),
        ),
      ),
    ),
  };
}

export type TraceTexts = Map<string, { questionText: string | null; goldSql: string | null; finalSql: string | null }>;

export function tracesTable(
  rows: TraceListRow[],
  texts: TraceTexts,
  labels: Map<string, string> = new Map(),
  /** Custom scores: a column `score:<name>` per name, each trace's value (booleans as true / false), empty if unscored. */
  scores: { names: readonly string[]; byTrace: Map<string, Map<string, number | boolean | string>> } = {
    names: [],
    byTrace: new Map(),
  },
): Table {
  const text = (r: TraceListRow) => texts.get(`${r.questionId}\u0000${r.sample}`);
  return {
    columns: [
      "question_id",
      "sample",
      "question_text",
      "db_id",
      "difficulty",
      "steps",
      "tool_calls",
      "exploratory_calls",
      "gold_count",
      "over_exploration",
      "extra_tables",
      "empty_probes",
      "tokens",
      "ex_outcome",
      "recorded_correct",
      "status",
      "final_sql",
      "gold_sql",
      "labels",
      ...scores.names.map((n) => `score:${n}`),
    ],
    rows: rows.map((r) => [
      r.questionId,
      r.sample,
      text(r)?.questionText ?? null,
      r.dbId,
      r.difficulty,
      r.stepCount,
      r.toolCallCount,
      r.exploratoryCalls,
      r.goldCount,
      r.overExploration,
      r.extraTableCount,
      r.emptyProbeCount,
      r.tokens,
      r.exOutcome,
      r.recordedCorrect,
      r.status,
      text(r)?.finalSql ?? null,
      text(r)?.goldSql ?? null,
      labels.get(`${r.questionId}\u0000${r.sample}`) ?? null,
      ...scores.names.map((n) => {
        const v = scores.byTrace.get(r.id)?.get(n);
        return v === undefined ? null : typeof v === "boolean" ? String(v) : v;
      }),
    ]),
  };
}

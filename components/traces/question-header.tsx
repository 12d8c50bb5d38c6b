import { OutcomeBadge } from "@/components/ui/outcome-badge";
import { readerFormats } from "@/components/ui/reader-locale";
import type { TraceRow, TraceTableSets } from "@/lib/db/schema";

function Metric({ label, value, help, warn }: { label: string; value: string; help: string; warn?: boolean }) {
  return (
    <div title={help} className="rounded border border-zinc-200 bg-white px-2 py-1">
      <div className="text-[10px] uppercase tracking-wide text-zinc-500">{label}</div>
      <div className={`font-semibold tabular-nums ${warn ? "text-amber-700" : ""}`}>{value}</div>
    </div>
  );
}

export async function QuestionHeader({
  trace,
  runName,
  sets,
}: {
  trace: TraceRow;
  runName: string;
  sets: TraceTableSets | null;
}) {
  const f = await readerFormats();
  const cost = trace.costUsd ?? trace.costComputedUsd;
  return (
    <header className="space-y-3">
      <div>
        <p className="text-xs text-zinc-500">
          {runName} · question <span className="font-mono">{trace.questionId}</span>
          {trace.sample ? ` · sample ${trace.sample}` : ""} · database{" "}
          <span className="font-mono">{trace.dbId ?? "unknown"}</span>
          {trace.difficulty ? ` · ${trace.difficulty}` : ""}
        </p>
        {trace.questionText && trace.questionText.length > 300 ? (
          // A long text (a whole prompt, when no question could be told apart) is collapsed: the heading stays readable.
          <details className="mt-1">
            <summary className="cursor-pointer text-lg font-semibold" data-testid="question-text">
              {trace.questionText.slice(0, 280)}… <span className="text-sm font-normal text-blue-700">show all</span>
            </summary>
            <p className="mt-1 whitespace-pre-wrap text-sm text-zinc-700">{trace.questionText}</p>
          </details>
        ) : (
          <h1 className="mt-1 text-lg font-semibold" data-testid="question-text">
            {trace.questionText || <span className="text-zinc-500">(the trace records no question text)</span>}
          </h1>
        )}
        {trace.evidence && (
          <p className="mt-1 text-sm text-zinc-600">
            <span className="font-medium">Evidence:</span> {trace.evidence}
          </p>
        )}
        <QuestionLink meta={trace.meta} />
      </div>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <OutcomeBadge
          exOutcome={trace.exOutcome}
          exError={trace.exError}
          recordedCorrect={trace.recordedCorrect}
          status={trace.status}
        />
        <span className="text-xs text-zinc-500">
          {trace.exOutcome
            ? `re-evaluated${trace.recordedCorrect !== null ? `; recorded: ${trace.recordedCorrect ? "correct" : "wrong"}` : ""}`
            : trace.recordedCorrect !== null
              ? "recorded in the trace (not re-evaluated)"
              : "no outcome"}
        </span>
        {trace.exError && (
          <span className="max-w-xl truncate text-xs text-red-700" title={trace.exError}>
            {trace.exError}
          </span>
        )}
      </div>
      <div className="flex flex-wrap gap-2 text-sm" data-testid="trace-metrics">
        <Metric
          label="Exploratory / gold"
          value={`${trace.exploratoryCalls} / ${trace.goldCount ?? (sets?.goldError ? "gold SQL fails" : "needs gold tables")}`}
          help="Exploratory calls (describe_table, PRAGMA table_info probes) against the number of tables the gold SQL reads"
        />
        <Metric
          label="Over-exploration"
          value={
            trace.overExploration === null
              ? "needs gold tables"
              : trace.overExploration > 0
                ? `+${trace.overExploration}`
                : String(trace.overExploration)
          }
          warn={(trace.overExploration ?? 0) > 0}
          help="Exploratory calls − gold tables"
        />
        <Metric
          label="Extra tables"
          value={
            trace.extraTableCount === null
              ? trace.finalSql
                ? "needs gold tables"
                : "no final SQL"
              : sets?.extra?.length
                ? sets.extra.join(", ")
                : "none"
          }
          warn={(trace.extraTableCount ?? 0) > 0}
          help="Tables of the final SQL that the gold SQL does not read"
        />
        <Metric
          label="Gold never explored"
          value={sets?.goldNeverExplored ? sets.goldNeverExplored.join(", ") || "none" : "needs gold tables"}
          help="Gold tables no exploratory call named"
        />
        <Metric
          label="Tokens in / out"
          value={
            trace.tokensRecorded ? `${f.tokens(trace.inputTokens)} / ${f.tokens(trace.outputTokens)}` : "not recorded"
          }
          help={trace.tokensRecorded ? "Output includes reasoning tokens" : "The trace carries no token usage"}
        />
        <Metric
          label="Cost"
          value={cost === null ? (trace.tokensRecorded ? "no price" : "not recorded") : f.usd(cost, 4)}
          help={trace.costUsd !== null ? "recorded in the trace" : "from the price table"}
        />
        <Metric
          label="Duration"
          value={trace.durationMs === null ? "not recorded" : f.seconds(trace.durationMs)}
          help="Wall time recorded in the trace"
        />
        <Metric
          label="Steps"
          value={String(trace.stepCount)}
          help={`${trace.toolCallCount} tool calls, ${trace.errorStepCount} with errors`}
        />
      </div>
    </header>
  );
}

/** How a foreign trace was linked to its question, so the link can be reviewed. */
function QuestionLink({ meta }: { meta: Record<string, unknown> | null }) {
  const link = meta?.question_link as { method?: string; matched?: string } | undefined;
  if (!link?.method) return null;
  const how: Record<string, string> = {
    field: "named in the file",
    given: "given at upload",
    exact: "its first user message equals the question",
    normalized: "its first user message equals the question once case, spacing and punctuation are ignored",
    contained: "its first user message contains the question",
    unlinked: "no question matched its first user message",
  };
  return (
    <p className="mt-1 text-xs text-zinc-500" data-testid="question-link">
      Linked to this question: {how[link.method] ?? link.method}
      {meta?.source_format ? ` (imported from ${String(meta.source_format)})` : ""}.
    </p>
  );
}

import { readerFormats } from "@/components/ui/reader-locale";
import type { sampleStats } from "@/lib/metrics/run-units";
import { accuracyOf, linkingOf, overExplorationOf, type RunAggregates } from "@/lib/metrics/run-metrics";

function Card({ label, value, detail, help }: { label: string; value: string; detail?: string; help: string }) {
  return (
    <div className="rounded-lg border border-zinc-200 bg-white p-3" title={help}>
      <div className="text-xs uppercase tracking-wide text-zinc-500">{label}</div>
      <div className="mt-1 text-2xl font-semibold tabular-nums">{value}</div>
      {detail && <div className="mt-0.5 text-xs text-zinc-500">{detail}</div>}
    </div>
  );
}

/** Summary cards of a run; every number follows docs/metrics.md, and each card says how it was computed. */
export async function RunSummary({
  a,
  hasDataset,
  samples,
  exSettings,
}: {
  a: RunAggregates;
  hasDataset: boolean;
  samples?: ReturnType<typeof sampleStats>;
  exSettings?: { mode: string; numeric: string } | null;
}) {
  const f = await readerFormats();
  const ex = accuracyOf(a);
  const over = overExplorationOf(a);
  const link = linkingOf(a);
  return (
    <div className="grid grid-cols-2 gap-3 md:grid-cols-4" data-testid="run-summary">
      <Card
        label="Execution accuracy"
        value={ex ? f.percent(ex.share) : "not judged"}
        detail={`${ex ? `of ${f.count(ex.n)} judged (${ex.source})` : "no outcome recorded or evaluated"}${a.goldErrors ? `; ${f.counted(a.goldErrors, "gold error")}` : ""}${a.traces - a.judged - a.goldErrors > 0 ? `; ${f.count(a.traces - a.judged - a.goldErrors)} not evaluated` : ""}${exSettings && ex && ex.source !== "recorded" ? (exSettings.mode === "spider2" ? " · by Spider 2.0's rules (chosen columns, numbers within 0.01)" : ` · rows as ${exSettings.mode}${exSettings.numeric === "sig10" ? ", numbers to 10 significant digits" : ""}`) : ""}`}
        help="Correct over judged traces (correct, wrong result, prediction error, time-out, no submission); gold errors and unevaluated traces are left out. Re-evaluated outcomes are used when the run was evaluated, else the recorded ones."
      />
      <Card
        label="Over-exploration"
        value={over === null ? "needs gold tables" : f.percent(over)}
        detail={
          over === null
            ? hasDataset
              ? "no trace has known gold tables"
              : "link a dataset (Edit this run) or upload traces with gold SQL"
            : `${f.count(a.exploratoryWithGold ?? 0)} exploratory vs ${f.count(a.goldSum ?? 0)} gold`
        }
        help="(Σ exploratory calls − Σ gold tables) / Σ gold tables, over traces whose gold tables are known (Sophrosyne). Exploratory: describe_table, or a read_query of PRAGMA table_info / pragma_table_info / sqlite_master for one table."
      />
      <Card
        label="Failed with extra tables"
        value={a.failedWithExtra === null ? "needs gold tables" : f.count(a.failedWithExtra)}
        detail={
          a.failedWithExtra === null
            ? "extra tables need the gold SQL's tables"
            : "failed traces whose final SQL reads a non-gold table"
        }
        help="Traces that are not correct and whose final SQL references a table the gold SQL does not."
      />
      <Card
        label="Tokens"
        value={a.tokensRecorded === 0 ? "not recorded" : `${f.tokens(a.inputTokens)} / ${f.tokens(a.outputTokens)}`}
        detail={
          a.tokensRecorded === 0
            ? "the traces carry no token usage"
            : `input / output (output includes reasoning)${a.tokensRecorded < a.traces ? `; ${f.count(a.tokensRecorded)} of ${f.counted(a.traces, "trace")} recorded usage` : ""}`
        }
        help="Summed over the traces that recorded usage."
      />
      <Card
        label="Cost"
        value={a.cost === null ? (a.tokensRecorded === 0 ? "not recorded" : "no price") : f.usd(a.cost)}
        detail={
          a.unpricedTraces
            ? `${f.counted(a.unpricedTraces, "trace")} without a price`
            : "recorded, else from the price table"
        }
        help="A trace's recorded cost_usd, else its tokens priced by the model's price table (METRON_PRICES overrides it)."
      />
      <Card
        label="Directive recall"
        value={a.directiveRecall === null ? "no directives" : f.percent(a.directiveRecall)}
        detail={
          a.directiveFlagRate === null
            ? "the traces carry no directives, or their gold tables are unknown"
            : `non-gold flagged: ${f.percent(a.directiveFlagRate)}`
        }
        help="Mean share of gold tables not flagged irrelevant, with the mean share of non-gold tables flagged (flagging nothing gives 100% recall)."
      />
      <Card
        label="Schema linking F1"
        value={link.f1 === null ? "needs gold tables" : f.percent(link.f1)}
        detail={
          link.f1 === null
            ? "needs gold and final tables"
            : `precision ${f.percent(link.precision)} · recall ${f.percent(link.recall)}`
        }
        help="Tables in the final SQL against the gold tables, micro-averaged over traces: precision = shared / final-SQL tables, recall = shared / gold tables (FlexSQL)."
      />
      <Card
        label="Empty-result probes"
        value={a.emptyProbes === null ? "not recorded" : f.count(a.emptyProbes)}
        detail={
          a.emptyProbes === null
            ? "no probe recorded its result"
            : `in ${f.counted(a.probeTraces, "trace")} with recorded probe results`
        }
        help="SQL probes (data inspection, execution) whose result had no rows (SDE-SQL); the timeline marks them and the probe that refines each."
      />
      {samples && (
        <Card
          label={`Pass@1 · Pass@${samples.k} · Majority@${samples.maxK}`}
          value={`${f.percent(samples.pass1, 0)} · ${f.percent(samples.passK, 0)} · ${samples.majorityK === null ? "—" : f.percent(samples.majorityK, 0)}`}
          detail={`${f.counted(samples.questions, "question")}${samples.short ? ` (${f.count(samples.short)} with fewer than ${samples.k} samples)` : ""}${samples.majorityK === null ? " · evaluate the run for Majority@K" : ""}`}
          help="Pass@1: mean share of correct samples per question. Pass@K: the unbiased estimator 1 − C(n−c, K)/C(n, K) over a question's n samples (K from ?k=, default the most samples). Majority@K: the largest group of equal execution results is correct; a question none of whose samples executed scores 0; a tie scores the share of tied groups that are correct."
        />
      )}
    </div>
  );
}

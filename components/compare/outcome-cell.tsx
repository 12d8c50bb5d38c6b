import type { PairStatus } from "@/lib/metrics/compare-runs";

const STATUS: Record<PairStatus, { label: string; cls: string }> = {
  fixed: { label: "fixed", cls: "bg-emerald-700 text-white" },
  regressed: { label: "regressed", cls: "bg-red-700 text-white" },
  both_right: { label: "both right", cls: "bg-emerald-100 text-emerald-800" },
  both_wrong: { label: "both wrong", cls: "bg-zinc-200 text-zinc-700" },
  unknown: { label: "unknown", cls: "bg-zinc-100 text-zinc-500" },
};

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

export function OutcomeCell({
  correct,
  status,
  exploratory,
  gold,
  exploratoryDelta,
  tokenDelta,
}: {
  correct: number | null;
  status: PairStatus | null;
  exploratory: number;
  gold: number | null;
  exploratoryDelta: number | null;
  tokenDelta: number | null;
}) {
  return (
    <span className="flex flex-wrap items-center gap-1 text-xs">
      <span className={correct === 1 ? "text-emerald-700" : correct === 0 ? "text-red-700" : "text-zinc-500"}>
        {correct === 1 ? "✓" : correct === 0 ? "✗" : "?"}
      </span>
      {status && (
        <span className={`rounded px-1 ${STATUS[status].cls}`} data-status={status}>
          {STATUS[status].label}
        </span>
      )}
      <span className="text-zinc-500" title="exploratory calls / gold tables">
        {exploratory}/{gold ?? "?"}
      </span>
      {exploratoryDelta !== null && exploratoryDelta !== 0 && (
        <span
          className={exploratoryDelta > 0 ? "text-amber-700" : "text-emerald-700"}
          title="exploratory calls against the baseline"
        >
          {signed(exploratoryDelta)} expl.
        </span>
      )}
      {tokenDelta !== null && tokenDelta !== 0 && (
        <span className="text-zinc-500" title="tokens against the baseline">
          {signed(tokenDelta)} tok
        </span>
      )}
    </span>
  );
}

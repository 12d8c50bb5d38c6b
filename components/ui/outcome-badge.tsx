/** A trace's outcome: the re-evaluated one when it exists, else the recorded one, and says which. */
const STYLE: Record<string, string> = {
  correct: "bg-emerald-100 text-emerald-800",
  wrong_result: "bg-red-100 text-red-800",
  pred_error: "bg-red-100 text-red-800",
  timeout: "bg-amber-100 text-amber-800",
  no_submission: "bg-zinc-200 text-zinc-700",
  gold_error: "bg-violet-100 text-violet-800",
  not_evaluated: "bg-zinc-100 text-zinc-600",
};

export function OutcomeBadge({
  exOutcome,
  exError,
  recordedCorrect,
  status,
}: {
  exOutcome: string | null;
  exError?: string | null;
  recordedCorrect: number | boolean | null;
  status: string;
}) {
  const recorded = recordedCorrect === null ? "none" : recordedCorrect ? "correct" : "wrong";
  if (exOutcome) {
    return (
      <span
        className={`rounded px-1.5 py-0.5 text-xs whitespace-nowrap ${STYLE[exOutcome] ?? ""}`}
        title={`re-evaluated${exError ? `: ${exError}` : ""} · recorded: ${recorded}`}
      >
        {exOutcome.replace(/_/g, " ")}
      </span>
    );
  }
  if (recordedCorrect !== null) {
    const ok = Boolean(recordedCorrect);
    return (
      <span
        className={`rounded px-1.5 py-0.5 text-xs whitespace-nowrap ${ok ? STYLE.correct : STYLE.wrong_result}`}
        title="recorded in the trace, not re-evaluated"
      >
        {ok ? "correct" : "wrong"} <span className="font-normal">(recorded)</span>
      </span>
    );
  }
  return (
    <span className="text-xs whitespace-nowrap text-zinc-500" title="no recorded outcome, not evaluated">
      {status.replace(/_/g, " ")}
    </span>
  );
}

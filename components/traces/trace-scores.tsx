"use client";

import { useState, useTransition } from "react";
import { LocalTime } from "@/components/ui/local-time";
import type { ScoreRow } from "@/lib/scores/scores";

type Outcome<T extends object = object> = ({ ok: true } & T) | { ok: false; error: string };

/** The question page's server action that sets a score (app/runs/[runId]/questions/[questionId]/actions.ts). */
export type SetTraceScore = (
  traceId: string,
  name: string,
  value: string,
  comment: string,
) => Promise<Outcome<{ scores: ScoreRow[] }>>;

const valueText = (s: ScoreRow) =>
  typeof s.value === "number" ? String(Number(s.value.toPrecision(6))) : String(s.value);

/**
 * The trace's custom scores (docs/scores.md) with their source, time and comment, and a form to set one by hand
 * (source `human`): `true` / `false`, a number, or a category; the same name replaces the trace's score. A refused
 * score (a name already used with another kind, a bad name) says why and the form keeps what was typed.
 */
export function TraceScores({
  traceId,
  initial,
  names,
  setScore,
}: {
  traceId: string;
  initial: ScoreRow[];
  /** Score names already in the store, offered as the name's suggestions. */
  names: string[];
  setScore: SetTraceScore;
}) {
  const [scores, setScores] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const [pending, start] = useTransition();
  // Submitted by hand, not as a form action: React resets a form after its action, and a refused score keeps what
  // was typed.
  const submit = (event: React.FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const element = event.currentTarget;
    const form = new FormData(element);
    setError(null);
    start(async () => {
      const r = await setScore(
        traceId,
        String(form.get("name") ?? ""),
        String(form.get("value") ?? ""),
        String(form.get("comment") ?? ""),
      );
      if (r.ok) {
        setScores(r.scores);
        element.reset();
      } else setError(r.error);
    });
  };
  return (
    <div className="space-y-1 text-sm" data-testid="trace-scores">
      <h3 className="font-semibold">Scores</h3>
      {scores.length === 0 ? (
        <p className="text-xs text-zinc-600">No scores on this trace.</p>
      ) : (
        <ul className="space-y-0.5">
          {scores.map((s) => (
            <li key={`${s.seq}-${s.name}`} data-score={s.name}>
              <span className="font-mono text-xs">{s.name}</span>
              {s.seq >= 0 && <span className="text-xs text-zinc-500"> (step {s.seq})</span>}{" "}
              <strong className="tabular-nums">{valueText(s)}</strong>{" "}
              <span className="text-xs text-zinc-500">
                {s.kind} · {s.source} · <LocalTime iso={s.at} />
              </span>
              {s.comment && <span className="block pl-4 text-xs text-zinc-700">{s.comment}</span>}
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={submit} className="flex flex-wrap items-end gap-2" aria-label="Set a score">
        <label className="flex flex-col text-xs text-zinc-600">
          name
          <input
            name="name"
            required
            list={`score-names-${traceId}`}
            pattern="[A-Za-z0-9_.:\-]{1,100}"
            title="letters, digits and _ . : - (at most 100)"
            className="w-36 rounded border border-zinc-300 px-1.5 py-0.5 font-mono text-sm text-zinc-900"
          />
        </label>
        <datalist id={`score-names-${traceId}`}>
          {names.map((n) => (
            <option key={n} value={n} />
          ))}
        </datalist>
        <label className="flex flex-col text-xs text-zinc-600">
          value (true / false, a number, or a category)
          <input
            name="value"
            required
            className="w-40 rounded border border-zinc-300 px-1.5 py-0.5 text-sm text-zinc-900"
          />
        </label>
        <label className="flex flex-col text-xs text-zinc-600">
          comment (optional)
          <input name="comment" className="w-64 rounded border border-zinc-300 px-1.5 py-0.5 text-sm text-zinc-900" />
        </label>
        <button
          type="submit"
          disabled={pending}
          className="rounded border border-zinc-300 bg-white px-2 py-0.5 hover:bg-zinc-50 disabled:opacity-50"
        >
          {pending ? "Saving…" : "Set score"}
        </button>
      </form>
      {error && (
        <p className="text-xs text-red-700" role="alert">
          Not saved: {error}
        </p>
      )}
    </div>
  );
}

"use client";

import { isShortcut } from "@/components/ui/keys";
import { startTransition, useLayoutEffect, useOptimistic, useRef, useState } from "react";
import { isNavigating } from "./navigation-state";
import type { LabelRow } from "@/lib/labels/labels";

interface Cause {
  key?: string;
  label: string;
}

type Outcome<T extends object = object> = ({ ok: true } & T) | { ok: false; error: string };

/** The page's server actions for the trace's labels and note (app/runs/[runId]/questions/[questionId]/actions.ts). */
export interface LabelActions {
  toggleLabel(traceId: string, label: string, on: boolean): Promise<Outcome<{ labels: LabelRow[] }>>;
  saveNote(traceId: string, note: string): Promise<Outcome>;
}

/** The trace's labels with one toggled, as the store will have them once it is saved. */
function toggled(labels: LabelRow[], change: { label: string; on: boolean }): LabelRow[] {
  const rest = labels.filter((l) => !(l.seq === -1 && l.label === change.label));
  return change.on ? [...rest, { seq: -1, label: change.label, who: "you", at: new Date().toISOString() }] : rest;
}

/**
 * Labels and a note on this trace, for error analysis. Number keys toggle the preset causes (0–9, o for other),
 * j / k move to the next or previous failing question (the question navigation), so a run is triaged without the
 * mouse. Free tags are typed in; a step's labels show beside it. A toggle shows at once (`useOptimistic`) and is
 * saved by a server action; a refused one goes back, with the reason.
 */
export function LabelPanel({
  traceId,
  initial,
  causes,
  note: initialNote,
  actions,
}: {
  traceId: string;
  initial: LabelRow[];
  causes: Cause[];
  note: string;
  actions: LabelActions;
}) {
  const [labels, setLabels] = useState(initial);
  const [shown, showToggle] = useOptimistic(labels, toggled);
  const [note, setNote] = useState(initialNote);
  const [saved, setSaved] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const on = new Set(shown.filter((l) => l.seq === -1).map((l) => l.label));
  // Toggles are saved one after another, each decided from the labels the previous ones leave: quick keys neither
  // race nor undo each other, and a reply never overwrites a newer one (issue 30).
  const expected = useRef(new Set(initial.filter((l) => l.seq === -1).map((l) => l.label)));
  const queue = useRef<Promise<unknown>>(Promise.resolve());
  const panelRef = useRef<HTMLElement>(null);

  const toggle = (label: string, value?: boolean) => {
    setError(null);
    const want = value ?? !expected.current.has(label);
    if (want) expected.current.add(label);
    else expected.current.delete(label);
    startTransition(async () => {
      showToggle({ label, on: want });
      const saving = queue.current.then(() => actions.toggleLabel(traceId, label, want));
      queue.current = saving.catch(() => undefined);
      const r = await saving.catch((e: Error) => ({ ok: false as const, error: e.message }));
      startTransition(() => {
        if (r.ok) setLabels(r.labels);
        else {
          // Refused: the label is as the store has it; the reason shows.
          if (want) expected.current.delete(label);
          else expected.current.add(label);
          setError(`"${label}" not saved: ${r.error}`);
        }
      });
    });
  };

  // Number keys subscribe to the document: an external system, hence the effect. A layout effect: the listener of
  // the question shown is in place when it paints, so a key pressed at once goes to it.
  useLayoutEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (!isShortcut(e)) return;
      const cause = causes.find((c) => c.key === e.key);
      if (cause) {
        e.preventDefault();
        // The next question is loading: this panel is the previous one's. Refused, visibly, not misfiled.
        if (isNavigating()) {
          setError(`"${cause.label}" not labelled: the next question is still loading; press it again once it shows`);
          return;
        }
        toggle(cause.label);
      }
    };
    document.addEventListener("keydown", onKey);
    // Keys work from now on (before hydration a key went nowhere): said on the element, for tests and scripts.
    panelRef.current?.setAttribute("data-keys", "ready");
    return () => document.removeEventListener("keydown", onKey);
  });

  const saveNote = async () => {
    const r = await actions.saveNote(traceId, note).catch((e: Error) => ({ ok: false as const, error: e.message }));
    setSaved(r.ok ? "saved" : `not saved: ${r.error}`);
  };

  const free = [...on].filter((l) => !causes.some((c) => c.label === l));
  const stepLabels = shown.filter((l) => l.seq >= 0);
  return (
    <section
      className="space-y-2 rounded-lg border border-zinc-200 bg-white p-3 text-sm"
      ref={panelRef}
      aria-labelledby="labels-heading"
      data-testid="label-panel"
    >
      <h2 id="labels-heading" className="text-xs font-semibold uppercase tracking-wide text-zinc-500">
        Why did it fail?{" "}
        <span className="font-normal normal-case">(keys 0–9 and o toggle; j / k: next / previous failing)</span>
      </h2>
      <div className="flex flex-wrap gap-1.5" role="group" aria-label="Failure causes">
        {causes.map((c) => (
          <button
            key={c.label}
            type="button"
            aria-pressed={on.has(c.label)}
            onClick={() => toggle(c.label)}
            className={`rounded border px-2 py-0.5 ${
              on.has(c.label)
                ? "border-violet-700 bg-violet-700 text-white"
                : "border-zinc-300 bg-white text-zinc-800 hover:bg-zinc-50"
            }`}
          >
            {c.key && <kbd className="mr-1 font-mono text-xs opacity-70">{c.key}</kbd>}
            {on.has(c.label) && <span aria-hidden="true">✓ </span>}
            {c.label}
          </button>
        ))}
        {free.map((l) => (
          <button
            key={l}
            type="button"
            aria-pressed="true"
            title="remove this tag"
            onClick={() => toggle(l, false)}
            className="rounded border border-violet-300 bg-violet-50 px-2 py-0.5 text-violet-900"
          >
            {l} ×
          </button>
        ))}
        <form
          onSubmit={(e) => {
            e.preventDefault();
            const input = e.currentTarget.elements.namedItem("tag") as HTMLInputElement;
            if (input.value.trim()) toggle(input.value.trim(), true);
            input.value = "";
          }}
        >
          <input
            name="tag"
            aria-label="Add a tag"
            placeholder="+ tag"
            className="w-28 rounded border border-zinc-300 px-2 py-0.5"
          />
        </form>
      </div>
      {stepLabels.length > 0 && (
        <p className="text-xs text-zinc-600">
          Steps:{" "}
          {stepLabels.map((l) => (
            <span key={`${l.seq}:${l.label}`} className="mr-2">
              step {l.seq}: {l.label}
            </span>
          ))}
        </p>
      )}
      <div className="flex items-start gap-2">
        <textarea
          aria-label="Note"
          value={note}
          onChange={(e) => {
            setNote(e.target.value);
            setSaved(null);
          }}
          rows={1}
          placeholder="A note on this trace"
          className="min-h-8 flex-1 rounded border border-zinc-300 px-2 py-1"
        />
        <button type="button" onClick={() => void saveNote()} className="rounded border border-zinc-300 px-2 py-1">
          Save note
        </button>
        {saved && <span className="py-1 text-xs text-zinc-600">{saved}</span>}
      </div>
      {error && (
        <p role="alert" className="text-red-700">
          {error}
        </p>
      )}
    </section>
  );
}

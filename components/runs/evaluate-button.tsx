"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

type State =
  | { phase: "idle" }
  | { phase: "running"; done: number; total: number }
  | { phase: "done"; counts: Record<string, number> }
  | { phase: "failed"; error: string };

/** Starts the re-evaluation of a run and follows its progress (server-sent events over the POST response). */
export function EvaluateButton({
  runId,
  disabledReason,
  defaultMode = "set",
}: {
  runId: string;
  disabledReason?: string;
  /** Spider 2.0's rules for a Spider2-lite dataset, sets (BIRD) otherwise. */
  defaultMode?: string;
}) {
  const router = useRouter();
  const [state, setState] = useState<State>({ phase: "idle" });
  const [mode, setMode] = useState(defaultMode);
  const [numeric, setNumeric] = useState("exact");

  async function start() {
    setState({ phase: "running", done: 0, total: 0 });
    const res = await fetch(`/api/runs/${encodeURIComponent(runId)}/evaluate`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ mode, numeric }),
    });
    if (!res.ok || !res.body) {
      const body = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
      setState({ phase: "failed", error: body.error });
      return;
    }
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      const events = buffer.split("\n\n");
      buffer = events.pop() ?? "";
      for (const e of events) {
        const data = JSON.parse(e.replace(/^data: /, ""));
        if (data.error) setState({ phase: "failed", error: data.error });
        else if (data.counts) setState({ phase: "done", counts: data.counts });
        else setState({ phase: "running", done: data.done, total: data.total });
      }
    }
    router.refresh();
  }

  const pct = state.phase === "running" && state.total ? Math.round((100 * state.done) / state.total) : 0;
  return (
    <div className="flex flex-wrap items-center gap-3 text-sm">
      <label className="flex items-center gap-1 text-zinc-600">
        Compare results as
        <select
          value={mode}
          onChange={(e) => setMode(e.target.value)}
          className="rounded border border-zinc-300 bg-white px-1 py-0.5"
          aria-label="Comparison mode"
        >
          <option value="set">sets (BIRD)</option>
          <option value="bag">bags</option>
          <option value="ordered">ordered lists</option>
          <option value="order-aware">ordered when gold has ORDER BY</option>
          <option value="spider2">Spider 2.0: chosen columns, 0.01 tolerance</option>
        </select>
      </label>
      <label className="flex items-center gap-1 text-zinc-600">
        numbers
        <select
          value={numeric}
          onChange={(e) => setNumeric(e.target.value)}
          className="rounded border border-zinc-300 bg-white px-1 py-0.5"
          aria-label="Numeric comparison"
          disabled={mode === "spider2"}
          title={mode === "spider2" ? "Spider 2.0 compares numbers within 0.01" : undefined}
        >
          <option value="exact">exactly (BIRD, Spider)</option>
          <option value="sig10">to 10 significant digits</option>
        </select>
      </label>
      <button
        type="button"
        onClick={() => void start()}
        disabled={state.phase === "running" || !!disabledReason}
        title={disabledReason}
        className="rounded bg-zinc-900 px-3 py-1.5 text-white disabled:opacity-50"
      >
        {state.phase === "running" ? "Evaluating…" : "Evaluate execution accuracy"}
      </button>
      {state.phase === "running" && (
        <span className="flex items-center gap-2">
          <span
            role="progressbar"
            aria-label="Evaluation"
            aria-valuenow={pct}
            aria-valuemin={0}
            aria-valuemax={100}
            className="inline-block h-2 w-40 overflow-hidden rounded bg-zinc-200"
          >
            <span className="block h-full bg-blue-500" style={{ width: `${pct}%` }} />
          </span>
          {state.done} / {state.total}
        </span>
      )}
      {state.phase === "done" && (
        <span data-testid="evaluate-result">
          {Object.entries(state.counts)
            .filter(([, n]) => n > 0)
            .map(([k, n]) => `${k.replace(/_/g, " ")}: ${n}`)
            .join(" · ")}
        </span>
      )}
      {state.phase === "failed" && (
        <span role="alert" className="text-red-700">
          {state.error}
        </span>
      )}
      {disabledReason && <span className="text-zinc-500">{disabledReason}</span>}
    </div>
  );
}

"use client";

import { count } from "@/lib/text/count";
import { useState } from "react";

type Result =
  | { ok: true; columns: string[]; rows: unknown[][]; truncated: boolean; ms: number }
  | { ok: false; error: string; kind: string };
type Response =
  | { ok: false; reason: string }
  | {
      ok: true;
      gold: Result;
      pred: Result;
      schemaOnly: boolean;
      diff: {
        missing: unknown[][];
        extra: unknown[][];
        missingCount: number;
        extraCount: number;
        commonCount: number;
      } | null;
    };

const cell = (v: unknown) => (v === null ? "NULL" : String(v));

function ResultTable({ title, r, marked, mark }: { title: string; r: Result; marked: Set<string>; mark: string }) {
  if (!r.ok)
    return (
      <div className="rounded border border-red-200 bg-red-50 p-2 text-xs text-red-800">
        <p className="font-medium">
          {title}: {r.kind}
        </p>
        <p>{r.error}</p>
      </div>
    );
  return (
    <div className="overflow-auto rounded border border-zinc-200">
      <p className="bg-zinc-50 px-2 py-1 text-xs text-zinc-500">
        {title}: {r.truncated ? `${r.rows.length}+ rows` : count(r.rows.length, "row")} in {Math.round(r.ms)} ms
      </p>
      <table className="w-full text-xs">
        <thead>
          <tr>
            {r.columns.map((c, i) => (
              <th key={i} className="px-2 py-1 text-left">
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {r.rows.map((row, i) => {
            const k = JSON.stringify(row);
            return (
              <tr key={i} className={marked.has(k) ? mark : ""}>
                {row.map((c, j) => (
                  <td key={j} className="px-2 py-0.5 font-mono">
                    {cell(c)}
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** Runs both queries on demand (through the read-only sandbox) and marks missing and extra rows. */
export function ResultsCompare({
  traceId,
  unavailable = null,
}: {
  traceId: string;
  /** Why there is nothing to run (no final or no gold SQL), said beside a disabled button instead of after a click. */
  unavailable?: string | null;
}) {
  const [state, setState] = useState<Response | "loading" | null>(null);
  const run = async () => {
    setState("loading");
    const res = await fetch(`/api/traces/${traceId}/results`, { method: "POST" });
    setState(await res.json());
  };
  return (
    <section className="space-y-2" aria-label="Results">
      <button
        type="button"
        onClick={() => void run()}
        disabled={state === "loading" || unavailable !== null}
        className="rounded border border-zinc-300 bg-white px-3 py-1 text-sm disabled:opacity-50"
      >
        {state === "loading" ? "Running both queries…" : "Run both queries and compare their results"}
      </button>
      {unavailable !== null && <span className="ml-2 text-sm text-zinc-600">{unavailable}</span>}
      {state && state !== "loading" && !state.ok && <p className="text-sm text-zinc-600">{state.reason}</p>}
      {state && state !== "loading" && state.ok && (
        <div className="space-y-2" data-testid="results-compare">
          {state.schemaOnly && (
            <p className="text-sm text-amber-700">Schema-only database: both results are empty by construction.</p>
          )}
          {state.diff && (
            <p className="text-sm">
              {count(state.diff.commonCount, "row")} in both ·{" "}
              <span className="text-red-700">{state.diff.missingCount} missing</span> from the final result ·{" "}
              <span className="text-amber-700">{state.diff.extraCount} extra</span> in it
            </p>
          )}
          <div className="grid gap-3 md:grid-cols-2">
            <ResultTable
              title="Final SQL"
              r={state.pred}
              marked={new Set(state.diff?.extra.map((r) => JSON.stringify(r)))}
              mark="bg-amber-100"
            />
            <ResultTable
              title="Gold SQL"
              r={state.gold}
              marked={new Set(state.diff?.missing.map((r) => JSON.stringify(r)))}
              mark="bg-red-100"
            />
          </div>
        </div>
      )}
    </section>
  );
}

"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import type { ProviderInfo } from "@/lib/agent/providers";
import { AgentFields } from "@/components/traces/agent-fields";

interface Props {
  datasetId: string;
  /** The run the sweep starts from (its failing questions, its filter) and is compared with; none on a dataset page. */
  source?: { id: string; name: string; failing: number; filter?: { ids: string[]; description: string } };
  totalQuestions: number;
  providers: Omit<ProviderInfo, "enable">[];
  /** The server's harness profiles (configured there, chosen here by name). */
  harnesses?: { name: string; kind: string; model: string; installed: boolean; version: string | null }[];
  defaults: { provider: string; model: string; variant: string; maxSteps: number; maxConcurrency: number };
}

const input = "rounded border border-zinc-300 px-2 py-1";

/** "Run a variant on these questions": a sweep into a new run, worked by the server's durable job queue. */
export function SweepForm({ datasetId, source, totalQuestions, providers, harnesses = [], defaults }: Props) {
  const router = useRouter();
  const [selection, setSelection] = useState(source && source.failing > 0 ? "failing" : "all");
  const [ids, setIds] = useState("");
  const [provider, setProvider] = useState(defaults.provider);
  const [model, setModel] = useState(defaults.model);
  const [variant, setVariant] = useState(defaults.variant);
  // "metron": Metron's own loop with a provider and model; else a harness profile's name.
  const [agent, setAgent] = useState("metron");
  // All three directive variants at once: one run each, saved as one experiment (the Sophrosyne table).
  const [grid, setGrid] = useState(false);
  const [samples, setSamples] = useState(1);
  const [concurrency, setConcurrency] = useState(Math.min(4, defaults.maxConcurrency));
  const [maxSteps, setMaxSteps] = useState(defaults.maxSteps);
  const [maxTokens, setMaxTokens] = useState("");
  const [maxCost, setMaxCost] = useState("");
  const [maxMinutes, setMaxMinutes] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: React.FormEvent) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    const list = ids
      .split(/[\s,]+/)
      .map((s) => s.trim())
      .filter(Boolean);
    const body = {
      dataset: datasetId,
      ...(source ? { sourceRunId: source.id } : {}),
      selection:
        selection === "failing"
          ? { kind: "failing", runId: source!.id }
          : selection === "filter"
            ? { kind: "filter", ids: source!.filter!.ids, description: source!.filter!.description }
            : selection === "ids"
              ? { kind: "ids", ids: list }
              : { kind: "all" },
      ...(agent === "metron" ? { provider, model } : { harness: agent }),
      variant,
      ...(grid ? { variants: ["none", "computed", "oracle"] } : {}),
      samples,
      concurrency,
      maxSteps,
      budget: {
        ...(maxTokens ? { maxTokens: Number(maxTokens) } : {}),
        ...(maxCost ? { maxCostUsd: Number(maxCost) } : {}),
        ...(maxMinutes ? { maxWallMs: Math.round(Number(maxMinutes) * 60_000) } : {}),
      },
    };
    const res = await fetch("/api/sweeps", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = await res.json().catch(() => ({ error: `HTTP ${res.status}` }));
    setBusy(false);
    if (!res.ok) return setError(answer.error);
    router.push(
      answer.experimentId
        ? `/experiments?experiment=${encodeURIComponent(answer.experimentId)}`
        : `/sweeps/${encodeURIComponent(answer.runId)}`,
    );
  };

  const count =
    selection === "failing"
      ? (source?.failing ?? 0)
      : selection === "filter"
        ? (source?.filter?.ids.length ?? 0)
        : selection === "ids"
          ? ids.split(/[\s,]+/).filter(Boolean).length
          : totalQuestions;

  return (
    <details className="rounded-lg border border-zinc-200 bg-white p-3 text-sm" data-testid="sweep-form">
      <summary className="cursor-pointer font-semibold">Run a variant on these questions (sweep)</summary>
      <form onSubmit={(e) => void submit(e)} className="mt-3 space-y-3">
        <fieldset className="flex flex-wrap gap-4">
          <legend className="mb-1 text-xs text-zinc-600">Questions</legend>
          {source && (
            <label className="flex items-center gap-1">
              <input
                type="radio"
                name="selection"
                checked={selection === "failing"}
                onChange={() => setSelection("failing")}
              />
              the {source.failing} failing in this run
            </label>
          )}
          {source?.filter && (
            <label className="flex items-center gap-1">
              <input
                type="radio"
                name="selection"
                checked={selection === "filter"}
                onChange={() => setSelection("filter")}
              />
              the {source.filter.ids.length} of the current filter ({source.filter.description})
            </label>
          )}
          <label className="flex items-center gap-1">
            <input type="radio" name="selection" checked={selection === "ids"} onChange={() => setSelection("ids")} />a
            list of ids
          </label>
          <label className="flex items-center gap-1">
            <input type="radio" name="selection" checked={selection === "all"} onChange={() => setSelection("all")} />
            the whole dataset ({totalQuestions})
          </label>
        </fieldset>
        {selection === "ids" && (
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600">Question ids, separated by commas, spaces or lines</span>
            <textarea value={ids} onChange={(e) => setIds(e.target.value)} rows={2} className={input} />
          </label>
        )}
        {harnesses.length > 0 && (
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600">Agent</span>
            <select value={agent} onChange={(e) => setAgent(e.target.value)} className={input} aria-label="Agent">
              <option value="metron">Metron&apos;s own loop (a provider and model below)</option>
              {harnesses.map((h) => (
                <option key={h.name} value={h.name} disabled={!h.installed}>
                  harness {h.name} ({h.kind}
                  {h.version ? ` ${h.version}` : ""}, {h.model}){h.installed ? "" : " — not installed"}
                </option>
              ))}
            </select>
          </label>
        )}
        {agent !== "metron" && (
          <p className="text-xs text-zinc-600" data-testid="sweep-harness-note">
            Each question runs through the harness with <code>metron mcp</code> for its question and the directives
            chosen below; the harness uses its profile&apos;s model (the provider and model below are not used).
          </p>
        )}
        <label className="flex items-center gap-1 text-sm">
          <input type="checkbox" checked={grid} onChange={(e) => setGrid(e.target.checked)} />
          every directive variant (none, computed, oracle) as a grid: one run each, saved as one experiment
        </label>
        <div className="flex flex-wrap items-end gap-3">
          <AgentFields
            providers={providers}
            value={{ provider, model, variant }}
            onChange={(v) => {
              setProvider(v.provider);
              setModel(v.model);
              setVariant(v.variant);
            }}
            idPrefix="sweep"
          />
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600">Samples (K)</span>
            <input
              type="number"
              min={1}
              max={20}
              value={samples}
              onChange={(e) => setSamples(Number(e.target.value))}
              className={`w-16 ${input}`}
            />
          </label>
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600">Concurrency</span>
            <input
              type="number"
              min={1}
              max={defaults.maxConcurrency}
              value={concurrency}
              onChange={(e) => setConcurrency(Number(e.target.value))}
              className={`w-16 ${input}`}
            />
          </label>
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600">Max steps</span>
            <input
              type="number"
              min={1}
              max={defaults.maxSteps}
              value={maxSteps}
              onChange={(e) => setMaxSteps(Number(e.target.value))}
              className={`w-16 ${input}`}
            />
          </label>
        </div>
        <fieldset className="flex flex-wrap items-end gap-3">
          <legend className="mb-1 text-xs text-zinc-600">
            Budget (optional): no job starts once one is reached; jobs already running finish
          </legend>
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600">Max tokens</span>
            <input
              inputMode="numeric"
              value={maxTokens}
              onChange={(e) => setMaxTokens(e.target.value)}
              className={`w-28 ${input}`}
            />
          </label>
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600">Max cost (USD)</span>
            <input
              inputMode="decimal"
              value={maxCost}
              onChange={(e) => setMaxCost(e.target.value)}
              className={`w-24 ${input}`}
            />
          </label>
          <label className="flex flex-col gap-1">
            <span className="text-xs text-zinc-600">Max wall time (min)</span>
            <input
              inputMode="decimal"
              value={maxMinutes}
              onChange={(e) => setMaxMinutes(e.target.value)}
              className={`w-24 ${input}`}
            />
          </label>
          <button
            type="submit"
            disabled={busy || count === 0}
            className="rounded bg-zinc-900 px-3 py-1.5 text-white disabled:opacity-50"
          >
            Start sweep of {count} question{count === 1 ? "" : "s"}
            {samples > 1 ? ` × ${samples}` : ""}
            {grid ? " × 3 variants" : ""}
          </button>
        </fieldset>
        {provider === "simulated" && (
          <p className="text-xs text-fuchsia-800">The simulated provider&apos;s runs are labelled simulated.</p>
        )}
        {error && (
          <p role="alert" className="text-red-700">
            {error}
          </p>
        )}
      </form>
    </details>
  );
}

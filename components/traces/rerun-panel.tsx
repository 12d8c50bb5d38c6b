"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import type { ProviderInfo } from "@/lib/agent/providers";
import type { RerunDefaults, RerunEvent } from "@/lib/agent/reruns";
import { VerdictLine } from "./verdict-line";
import { AgentFields } from "./agent-fields";
import { summarizeArgs } from "@/lib/trace/step-summary";

type Step = { seq: number; type: string; tool?: string; args?: unknown; error?: string; content?: string };

/**
 * Rerun this question server-side, by default as the original ran (its provider, model and directive variant);
 * steps stream in as they happen (server-sent events, reconnect-safe), and the verdict against the original
 * (fixed, still wrong, regressed, still right) appears when it ends: the rerun is evaluated at once.
 */
export function RerunPanel({
  traceId,
  runId,
  questionId,
  providers,
  defaults,
}: {
  traceId: string;
  runId: string;
  questionId: string;
  providers: Omit<ProviderInfo, "enable">[];
  defaults: RerunDefaults;
}) {
  const router = useRouter();
  const [provider, setProvider] = useState<string>(defaults.provider);
  const [model, setModel] = useState(defaults.model);
  const [variant, setVariant] = useState<string>(defaults.variant);
  const [maxSteps, setMaxSteps] = useState(defaults.limits.maxSteps);
  const [wallSeconds, setWallSeconds] = useState(Math.round(defaults.limits.wallTimeMs / 1000));
  const [jobId, setJobId] = useState<string | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [steps, setSteps] = useState<Step[]>([]);
  const [done, setDone] = useState<Extract<RerunEvent, { type: "done" }> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const source = useRef<EventSource | null>(null);

  const follow = (id: string) => {
    const es = new EventSource(`/api/reruns/${id}/events`);
    source.current = es;
    es.onmessage = (m) => {
      const e = JSON.parse(m.data) as RerunEvent;
      if (e.type === "status")
        setStatus(
          e.status === "queued" ? `queued (position ${e.position ?? "?"}: other reruns are running)` : "running",
        );
      else if (e.type === "step")
        setSteps((s) => (s.some((x) => x.seq === (e.step as Step).seq) ? s : [...s, e.step as Step]));
      else if (e.type === "done") {
        setDone(e);
        setStatus(e.status);
        if (e.error) setError(e.error);
        es.close();
        router.refresh(); // the list of this trace's reruns
      } else if (e.type === "failed") {
        setError(e.error);
        setStatus("failed");
        es.close();
      }
    };
    // EventSource reconnects by itself and sends Last-Event-ID: the server replays what was missed.
  };

  const start = async () => {
    setSteps([]);
    setDone(null);
    setError(null);
    setStatus("starting");
    const res = await fetch("/api/reruns", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ traceId, provider, model, variant, maxSteps, wallTimeMs: wallSeconds * 1000 }),
    });
    const body = await res.json();
    if (!res.ok) {
      setError(body.error);
      setStatus(null);
      return;
    }
    setJobId(body.jobId);
    follow(body.jobId);
  };
  const cancel = async () => {
    if (jobId) await fetch(`/api/reruns/${jobId}/cancel`, { method: "POST" });
  };
  const running = status === "starting" || status === "running" || status?.startsWith("queued");

  return (
    <section
      className="space-y-3 rounded-lg border border-zinc-200 bg-white p-4"
      aria-labelledby="rerun-heading"
      data-testid="rerun-panel"
    >
      <h2 id="rerun-heading" className="font-semibold">
        Rerun this question
      </h2>
      <div className="flex flex-wrap items-end gap-3 text-sm">
        <AgentFields
          providers={providers}
          value={{ provider, model, variant }}
          onChange={(v) => {
            setProvider(v.provider);
            setModel(v.model);
            setVariant(v.variant);
          }}
          idPrefix="rerun"
        />
        <label className="flex flex-col gap-1">
          Max steps
          <input
            aria-label="Max steps"
            type="number"
            min={1}
            max={200}
            value={maxSteps}
            onChange={(e) => setMaxSteps(Number(e.target.value))}
            className="w-20 rounded border border-zinc-300 px-2 py-1"
          />
        </label>
        <label className="flex flex-col gap-1">
          Wall time (s)
          <input
            aria-label="Wall time"
            type="number"
            min={1}
            max={3600}
            value={wallSeconds}
            onChange={(e) => setWallSeconds(Number(e.target.value))}
            className="w-20 rounded border border-zinc-300 px-2 py-1"
          />
        </label>
        <button
          type="button"
          onClick={() => void start()}
          disabled={running}
          className="rounded bg-zinc-900 px-3 py-1.5 text-white disabled:opacity-50"
        >
          Rerun
        </button>
        {running && (
          <button type="button" onClick={() => void cancel()} className="rounded border border-zinc-300 px-3 py-1.5">
            Cancel
          </button>
        )}
      </div>
      {defaults.unavailable && (
        <p className="text-sm text-amber-800" data-testid="rerun-unavailable">
          {defaults.unavailable}.
        </p>
      )}
      {provider === "simulated" && (
        <p className="text-xs text-fuchsia-800">
          The simulated provider is a deterministic stand-in for a model: its trace is labelled simulated.
        </p>
      )}
      {status && (
        <p className="text-sm" data-testid="rerun-status">
          Status: {status}
        </p>
      )}
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      {steps.length > 0 && (
        <ol
          className="max-h-72 overflow-auto rounded border border-zinc-100 font-mono text-xs"
          data-testid="rerun-steps"
        >
          {steps.map((s) => (
            <li key={s.seq} className={`border-b border-zinc-50 px-2 py-1 ${s.error ? "text-red-700" : ""}`}>
              {s.seq}. {s.tool ?? s.type}{" "}
              {s.tool
                ? summarizeArgs(s.args === undefined ? null : JSON.stringify(s.args))
                : (s.content ?? "").slice(0, 120)}
            </li>
          ))}
        </ol>
      )}
      {done?.verdict && <VerdictLine verdict={done.verdict} testId="rerun-verdict" />}
      {done && (
        <p className="flex flex-wrap gap-3 text-sm" data-testid="rerun-done">
          <Link
            className="text-blue-700 hover:underline"
            href={`/runs/${done.runId}/questions/${encodeURIComponent(done.questionId)}${done.sample ? `?sample=${done.sample}` : ""}`}
          >
            Open the new trace
          </Link>
          <Link
            className="text-blue-700 hover:underline"
            href={`/compare/questions/${encodeURIComponent(questionId)}?runs=${runId},${done.runId}&samples=${done.originalSample},${done.sample}`}
          >
            See it beside the original
          </Link>
        </p>
      )}
    </section>
  );
}

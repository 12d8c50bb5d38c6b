"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import type { SweepStatus } from "@/lib/agent/sweeps";
import { useFormats } from "@/components/ui/locale";

const seconds = (ms: number) => {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : s < 3600 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${(s / 3600).toFixed(1)} h`;
};

/** A sweep's progress, live (server-sent events): bar, counts, ETA, spend against the budget, outcomes, running jobs. */
export function SweepProgress({ initial, compact = false }: { initial: SweepStatus; compact?: boolean }) {
  const f = useFormats();
  const router = useRouter();
  const [s, setS] = useState(initial);
  const [error, setError] = useState<string | null>(null);
  const live = s.state === "running" || s.jobs.running > 0;

  useEffect(() => {
    if (!live) return;
    const es = new EventSource(`/api/sweeps/${encodeURIComponent(s.runId)}/events`);
    es.onmessage = (m) => {
      const next = JSON.parse(m.data) as SweepStatus;
      setS(next);
      if (next.state !== "running" && next.jobs.running === 0) {
        es.close();
        router.refresh();
      }
    };
    return () => es.close();
  }, [live, s.runId, router]);

  const control = async (action: "pause" | "resume" | "cancel", payload?: object) => {
    setError(null);
    if (action === "cancel") {
      const left = s.jobs.queued + s.jobs.running;
      // Cancelling drops every queued job: asked first, with how many (issue 30).
      if (
        !window.confirm(
          `Cancel this sweep? ${f.count(left)} of ${f.count(s.jobs.total)} jobs have not finished and will not run.`,
        )
      )
        return;
    }
    const res = await fetch(`/api/sweeps/${encodeURIComponent(s.runId)}/${action}`, {
      method: "POST",
      ...(payload ? { headers: { "Content-Type": "application/json" }, body: JSON.stringify(payload) } : {}),
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) setError(body.error ?? `HTTP ${res.status}`);
    else {
      // The sweep as it is now: a cancel or a stop ends the live stream before its last snapshot may arrive, and the
      // jobs it left unrun and why were then never shown (e2e caught it on PostgreSQL).
      const fresh = await fetch(`/api/sweeps/${encodeURIComponent(s.runId)}`)
        .then((r) => (r.ok ? (r.json() as Promise<SweepStatus>) : null))
        .catch(() => null);
      setS(fresh ?? { ...s, state: body.state });
    }
    router.refresh();
  };

  const finished = s.jobs.done + s.jobs.failed;
  // The bar shows what ran: jobs not run (budget, cancel) are a segment of their own, never "finished" (issue 30).
  const share = s.jobs.total ? finished / s.jobs.total : 0;
  const percent = Math.round(share * 100);
  const width = (n: number) => `${s.jobs.total ? (100 * n) / s.jobs.total : 0}%`;
  const tokensText =
    s.tokens === null
      ? "not recorded (the provider reported no usage)"
      : `${f.count(s.tokens)}${s.tokensUnreported ? ` (and ${f.count(s.tokensUnreported)} ${s.tokensUnreported === 1 ? "job" : "jobs"} without usage reported)` : ""}`;
  const compareHref = s.sourceRunId
    ? `/compare?runs=${encodeURIComponent(s.sourceRunId)},${encodeURIComponent(s.runId)}&baseline=${encodeURIComponent(s.sourceRunId)}`
    : null;
  const budget = [
    s.budget.maxTokens !== undefined
      ? `${s.tokens === null ? "unknown" : f.count(s.tokens)} of ${f.counted(s.budget.maxTokens, "token")}`
      : null,
    s.budget.maxCostUsd !== undefined
      ? `${s.costUsd === null ? "cost not priced" : f.usd(s.costUsd, 4)} of ${f.usd(s.budget.maxCostUsd, 2)}`
      : null,
    s.budget.maxWallMs !== undefined ? `${seconds(s.elapsedMs)} of ${seconds(s.budget.maxWallMs)}` : null,
  ].filter(Boolean);

  return (
    <section
      className="space-y-2 rounded-lg border border-zinc-200 bg-white p-3 text-sm"
      aria-label="Sweep progress"
      data-testid="sweep-progress"
    >
      <div className="flex flex-wrap items-center gap-3">
        <strong>
          Sweep {s.state}
          {s.stoppedBy ? ` (stopped by ${s.stoppedBy})` : ""}
        </strong>
        <span className="text-zinc-600">
          {s.variant === "none" ? "no" : s.variant} directives ·{" "}
          {s.harness ? (
            <span data-testid="sweep-harness">
              harness {s.harness.name} ({s.harness.kind}
              {s.harness.version ? ` ${s.harness.version}` : ", version not reported"}) · {s.model}
            </span>
          ) : (
            <>
              {s.provider === "simulated" ? "simulated " : `${s.provider} `}
              {s.model}
            </>
          )}{" "}
          · {s.samples} sample{s.samples > 1 ? "s" : ""} · concurrency {s.concurrency}
        </span>
        {compact && (
          <Link className="text-blue-700 hover:underline" href={`/sweeps/${encodeURIComponent(s.runId)}`}>
            sweep page
          </Link>
        )}
      </div>
      <div
        role="progressbar"
        aria-label="Jobs finished"
        aria-valuemin={0}
        aria-valuemax={100}
        aria-valuenow={percent}
        className="h-3 w-full overflow-hidden rounded bg-zinc-100"
      >
        <div className="flex h-full">
          <div className="h-full bg-emerald-600 transition-all" style={{ width: width(s.jobs.done) }} />
          <div className="h-full bg-red-500 transition-all" style={{ width: width(s.jobs.failed) }} />
          <div
            className="h-full bg-[repeating-linear-gradient(45deg,#d4d4d8_0,#d4d4d8_4px,#f4f4f5_4px,#f4f4f5_8px)]"
            style={{ width: width(s.jobs.cancelled) }}
            title="not run"
            data-testid="sweep-not-run-bar"
          />
        </div>
      </div>
      <p data-testid="sweep-counts">
        {f.percent(share, 0)} ran · {f.count(s.jobs.done)} done, {f.count(s.jobs.failed)} failed,{" "}
        {f.count(s.jobs.cancelled)} not run, {f.count(s.jobs.queued + s.jobs.running)} remaining (
        {f.count(s.jobs.running)} running) of {f.count(s.jobs.total)}
        {s.etaMs !== null ? ` · about ${seconds(s.etaMs)} left` : ""} · {seconds(s.elapsedMs)} elapsed
      </p>
      <p>
        Tokens {tokensText} · cost {s.costUsd === null ? "not priced (a model without a price)" : f.usd(s.costUsd, 4)}
        {s.provider === "simulated" ? " (simulated: free)" : ""}
        {budget.length ? ` · budget: ${budget.join(", ")}` : " · no budget"}
      </p>
      {s.price && (
        <p className="text-xs text-zinc-600">
          Priced at ${s.price.input} input / ${s.price.output} output per million tokens ({s.price.source}).
        </p>
      )}
      {s.sourceRunId && (
        <p data-testid="sweep-outcomes">
          Against {s.sourceRunName}: <span className="text-emerald-800">↑ {s.outcomes.fixed} fixed</span>,{" "}
          <span className="text-red-800">↓ {s.outcomes.regressed} regressed</span>, {s.outcomes["still right"]} still
          right, {s.outcomes["still wrong"]} still wrong
          {s.outcomes.unknown ? `, ${s.outcomes.unknown} not judged (a side without a verdict)` : ""}
        </p>
      )}
      <div className="flex flex-wrap gap-2">
        {s.state === "running" && (
          <button
            type="button"
            className="rounded border border-zinc-300 px-2 py-1"
            onClick={() => void control("pause")}
          >
            Pause
          </button>
        )}
        {s.state === "paused" && (
          <button
            type="button"
            className="rounded border border-zinc-300 px-2 py-1"
            onClick={() => void control("resume")}
          >
            Resume
          </button>
        )}
        {(s.state === "running" || s.state === "paused") && (
          <button
            type="button"
            className="rounded border border-red-300 px-2 py-1 text-red-800"
            onClick={() => void control("cancel")}
          >
            Cancel
          </button>
        )}
        {!live && compareHref && (
          <Link className="rounded bg-zinc-900 px-3 py-1 text-white" href={compareHref} data-testid="sweep-compare">
            Compare with {s.sourceRunName}
          </Link>
        )}
        {!compact && (
          <Link className="px-2 py-1 text-blue-700 hover:underline" href={`/runs/${encodeURIComponent(s.runId)}`}>
            Open the sweep&apos;s run
          </Link>
        )}
      </div>
      {s.state === "stopped" && <RaiseBudget s={s} onResume={(budget) => void control("resume", { budget })} />}
      {s.stopReason && s.state !== "running" && (
        <p className="text-xs text-zinc-600" data-testid="sweep-stop-reason">
          {f.count(s.jobs.cancelled)} not run: {s.stopReason}.
        </p>
      )}
      {error && (
        <p role="alert" className="text-red-700">
          {error}
        </p>
      )}
      {!compact && s.running.length > 0 && (
        <div className="space-y-1" data-testid="sweep-running">
          <h3 className="text-xs font-semibold text-zinc-600">Running now</h3>
          <ul className="space-y-1 font-mono text-xs">
            {s.running.map((r) => (
              <li key={r.jobId}>
                question {r.questionId}
                {s.samples > 1 ? ` #${r.sample}` : ""}: {f.counted(r.steps, "step")}
                {r.recent.length ? " … " : ""}
                {r.recent.map((st) => (
                  <span key={st.seq} className={st.error ? "text-red-700" : "text-zinc-700"}>
                    {st.label}
                    {" → "}
                  </span>
                ))}
              </li>
            ))}
          </ul>
        </div>
      )}
      {!compact && s.errors.length > 0 && (
        <div className="space-y-1">
          <h3 className="text-xs font-semibold text-zinc-600">Failed jobs (last error)</h3>
          <ul className="text-xs text-red-800">
            {s.errors.map((e) => (
              <li key={`${e.questionId}:${e.sample}`}>
                question {e.questionId}
                {s.samples > 1 ? ` #${e.sample}` : ""}: {e.error ?? "no error recorded"}
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

/** A sweep stopped by its budget resumes with a larger one: each limit it has, prefilled at twice its value or twice what was spent. */
function RaiseBudget({
  s,
  onResume,
}: {
  s: SweepStatus;
  onResume: (budget: { maxTokens?: number; maxCostUsd?: number; maxWallMs?: number }) => void;
}) {
  // Prefilled at twice the limit or twice what was spent, whichever is larger: a raise that lets the sweep run on.
  const twice = (limit: number, spent: number | null) => Math.max(limit, spent ?? 0) * 2;
  const [tokens, setTokens] = useState(
    s.budget.maxTokens !== undefined ? String(Math.ceil(twice(s.budget.maxTokens, s.tokens))) : "",
  );
  const [usd, setUsd] = useState(
    s.budget.maxCostUsd !== undefined ? String(Number(twice(s.budget.maxCostUsd, s.costUsd).toFixed(2))) : "",
  );
  const [minutes, setMinutes] = useState(
    s.budget.maxWallMs !== undefined ? String(Math.ceil(twice(s.budget.maxWallMs, s.elapsedMs) / 60_000)) : "",
  );
  const num = (v: string) => (v.trim() ? Number(v) : undefined);
  const budget = {
    ...(num(tokens) !== undefined ? { maxTokens: num(tokens) } : {}),
    ...(num(usd) !== undefined ? { maxCostUsd: num(usd) } : {}),
    ...(num(minutes) !== undefined ? { maxWallMs: num(minutes)! * 60_000 } : {}),
  };
  const valid = Object.values(budget).every((v) => Number.isFinite(v) && v! > 0);
  const field = (label: string, value: string, set: (v: string) => void) => (
    <label className="flex items-center gap-1">
      {label}
      <input
        type="number"
        min="0"
        step="any"
        value={value}
        onChange={(e) => set(e.target.value)}
        className="w-28 rounded border border-zinc-300 px-1 py-0.5"
      />
    </label>
  );
  return (
    <form
      className="flex flex-wrap items-center gap-3 rounded border border-amber-300 bg-amber-50 p-2 text-xs"
      aria-label="Raise the budget"
      onSubmit={(e) => {
        e.preventDefault();
        if (valid) onResume(budget);
      }}
    >
      <span>Stopped by its budget: raise it to run the rest.</span>
      {s.budget.maxTokens !== undefined && field("Max tokens", tokens, setTokens)}
      {s.budget.maxCostUsd !== undefined && field("Max USD", usd, setUsd)}
      {s.budget.maxWallMs !== undefined && field("Max minutes", minutes, setMinutes)}
      <button type="submit" disabled={!valid} className="rounded bg-zinc-900 px-2 py-1 text-white disabled:opacity-50">
        Raise the budget and resume
      </button>
    </form>
  );
}

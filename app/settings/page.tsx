import { connection } from "next/server";
import { Suspense } from "react";
import { defaultLimits } from "@/lib/agent/loop";
import { listProviders } from "@/lib/agent/providers";
import type { Metadata } from "next";

export const metadata: Metadata = { title: "Settings — Metron" };

export default function SettingsPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Settings</h1>
      <Suspense fallback={<p className="text-sm text-zinc-500">Loading…</p>}>
        <Providers />
      </Suspense>
    </div>
  );
}

/** Which model providers the server can use for reruns (read from its environment; no key is shown or sent). */
async function Providers() {
  await connection();
  const limits = defaultLimits();
  return (
    <>
      <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
        <table className="w-full text-sm" data-testid="providers-table">
          <thead className="border-b border-zinc-200 bg-zinc-50 text-left text-xs uppercase tracking-wide text-zinc-500">
            <tr>
              <th className="px-3 py-2">Provider</th>
              <th className="px-3 py-2">Status</th>
              <th className="px-3 py-2">Models</th>
              <th className="px-3 py-2">How to enable</th>
            </tr>
          </thead>
          <tbody>
            {listProviders().map((p) => (
              <tr key={p.id} className="border-b border-zinc-100 last:border-0">
                <td className="px-3 py-2 font-medium">{p.label}</td>
                <td className="px-3 py-2">
                  {p.available ? (
                    <span className="text-emerald-700">available</span>
                  ) : (
                    <span className="text-zinc-500">not configured</span>
                  )}
                </td>
                <td className="px-3 py-2 font-mono text-xs">{p.models.join(", ")}</td>
                <td className="px-3 py-2 text-xs text-zinc-600">{p.enable}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="text-sm text-zinc-600">
        Keys are read from the server&apos;s environment when it starts; they never reach the browser and are never
        written into traces. Rerun limits: {limits.maxSteps} steps (METRON_AGENT_MAX_STEPS), {limits.maxOutputTokens}{" "}
        output tokens per call (METRON_AGENT_MAX_OUTPUT_TOKENS), {Math.round(limits.wallTimeMs / 1000)} s wall time
        (METRON_AGENT_WALL_TIME_MS), {process.env.METRON_RERUN_CONCURRENCY ?? 2} at a time (METRON_RERUN_CONCURRENCY).
      </p>
    </>
  );
}

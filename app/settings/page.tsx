import { connection } from "next/server";
import { Suspense } from "react";
import { defaultLimits } from "@/lib/agent/loop";
import { listProviders } from "@/lib/agent/providers";
import { listHarnesses } from "@/lib/agent/harnesses";
import type { Metadata } from "next";
import { getSql } from "@/lib/db/store";
import { listRunModels } from "@/lib/db/queries/runs";
import { loadPrices } from "@/lib/ingest/prices-file";
import { PRICE_CATALOGUE, priceOf } from "@/lib/metrics/prices";

export const metadata: Metadata = { title: "Settings — Metron" };

export default function SettingsPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-xl font-semibold">Settings</h1>
      <Suspense fallback={<p className="text-sm text-zinc-500">Loading…</p>}>
        <Providers />
        <Harnesses />
        <Prices />
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

/** The agent harness profiles of the server's configuration (METRON_HARNESSES), and whether each is installed. */
async function Harnesses() {
  await connection();
  const { file, profiles, error } = listHarnesses();
  return (
    <section className="space-y-2" aria-labelledby="harnesses-heading">
      <h2 id="harnesses-heading" className="font-semibold">
        Agent harnesses
      </h2>
      <p className="text-sm text-zinc-600">
        Sweeps can run each question through an agent harness (OpenCode, Claude Code, Codex, or a command) with{" "}
        <code>metron mcp</code> as its environment. Profiles come only from the server&apos;s configuration:{" "}
        {file ? <code>{file}</code> : "none configured (set METRON_HARNESSES to a profiles file; see docs/agent.md)"}.
      </p>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      {profiles.length > 0 && (
        <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
          <table className="w-full text-sm" data-testid="harnesses-table">
            <thead className="border-b border-zinc-200 bg-zinc-50 text-left text-xs uppercase tracking-wide text-zinc-500">
              <tr>
                <th className="px-3 py-2">Profile</th>
                <th className="px-3 py-2">Kind</th>
                <th className="px-3 py-2">Model</th>
                <th className="px-3 py-2">Program</th>
                <th className="px-3 py-2">Status</th>
                <th className="px-3 py-2 text-right">Wall time</th>
              </tr>
            </thead>
            <tbody>
              {profiles.map((p) => (
                <tr key={p.name} className="border-b border-zinc-100 last:border-0">
                  <td className="px-3 py-2 font-medium">{p.name}</td>
                  <td className="px-3 py-2">{p.kind}</td>
                  <td className="px-3 py-2 font-mono text-xs">{p.model}</td>
                  <td className="px-3 py-2 font-mono text-xs">{p.program}</td>
                  <td className="px-3 py-2">
                    {p.installed ? (
                      <span className="text-emerald-800">installed{p.version ? ` (${p.version})` : ""}</span>
                    ) : (
                      <span className="text-red-800">not installed</span>
                    )}
                  </td>
                  <td className="px-3 py-2 text-right">{p.timeoutS} s</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The price of every model in the store and every model a provider offers, with where each price comes from. */
async function Prices() {
  await connection();
  const table = loadPrices();
  const models = [
    ...new Set([
      ...(await listRunModels(await getSql())),
      ...listProviders()
        .filter((p) => p.available && p.id !== "simulated")
        .flatMap((p) => p.models.map((m) => `${p.id}:${m}`)),
    ]),
  ].sort();
  const usd = (n: number | undefined) => (n === undefined ? "—" : `$${n}`);
  return (
    <section className="space-y-2" aria-labelledby="prices-heading">
      <h2 id="prices-heading" className="font-semibold">
        Prices
      </h2>
      <p className="text-sm text-zinc-600">
        USD per million tokens. List prices come from {PRICE_CATALOGUE.name} {PRICE_CATALOGUE.version} (as of{" "}
        {PRICE_CATALOGUE.released}); a JSON file named by METRON_PRICES overrides or adds prices. Costs and sweep
        budgets use these; a model without a price has no computed cost.
      </p>
      <div className="overflow-x-auto rounded-lg border border-zinc-200 bg-white">
        <table className="w-full text-sm" data-testid="prices-table">
          <thead className="border-b border-zinc-200 bg-zinc-50 text-left text-xs uppercase tracking-wide text-zinc-500">
            <tr>
              <th className="px-3 py-2">Model</th>
              <th className="px-3 py-2 text-right">Input</th>
              <th className="px-3 py-2 text-right">Cached input</th>
              <th className="px-3 py-2 text-right">Output</th>
              <th className="px-3 py-2">Source</th>
            </tr>
          </thead>
          <tbody>
            {models.map((m) => {
              const p = m.startsWith("sim-") ? undefined : priceOf(m, table);
              return (
                <tr key={m} className="border-b border-zinc-100 last:border-0">
                  <td className="px-3 py-2 font-mono text-xs">{m}</td>
                  <td className="px-3 py-2 text-right">{usd(p?.input)}</td>
                  <td className="px-3 py-2 text-right">{usd(p?.cached_input)}</td>
                  <td className="px-3 py-2 text-right">{usd(p?.output)}</td>
                  <td className="px-3 py-2 text-xs text-zinc-600">
                    {m.startsWith("sim-") ? "simulated: free" : (p?.source ?? "no price: costs not computed")}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </section>
  );
}

"use client";

import type { ProviderInfo } from "@/lib/agent/providers";

export interface AgentChoice {
  provider: string;
  model: string;
  variant: string;
}

/**
 * Provider, model and directive variant of an agent run (a rerun, a sweep): choosing a provider proposes its first
 * model; a provider that is not configured is shown, disabled.
 */
export function AgentFields({
  providers,
  value,
  onChange,
  idPrefix,
}: {
  providers: Omit<ProviderInfo, "enable">[];
  value: AgentChoice;
  onChange: (v: AgentChoice) => void;
  /** Distinguishes the model list of one form from another's on the same page. */
  idPrefix: string;
}) {
  const chosen = providers.find((p) => p.id === value.provider);
  const field = "rounded border border-zinc-300 bg-white px-2 py-1";
  return (
    <>
      <label className="flex flex-col gap-1">
        <span className="text-xs text-zinc-600">Provider</span>
        <select
          aria-label="Provider"
          value={value.provider}
          onChange={(e) => {
            const p = providers.find((x) => x.id === e.target.value)!;
            onChange({ ...value, provider: p.id, model: p.models[0] ?? "" });
          }}
          className={field}
        >
          {providers.map((p) => (
            <option key={p.id} value={p.id} disabled={!p.available}>
              {p.label}
              {p.available ? "" : " (not configured)"}
            </option>
          ))}
        </select>
      </label>
      <label className="flex flex-col gap-1">
        <span className="text-xs text-zinc-600">Model</span>
        <input
          aria-label="Model"
          list={`${idPrefix}-models`}
          value={value.model}
          onChange={(e) => onChange({ ...value, model: e.target.value })}
          className={field}
        />
        <datalist id={`${idPrefix}-models`}>
          {chosen?.models.map((m) => (
            <option key={m} value={m} />
          ))}
        </datalist>
      </label>
      <label className="flex flex-col gap-1">
        <span className="text-xs text-zinc-600">Directives</span>
        <select
          aria-label="Directives"
          value={value.variant}
          onChange={(e) => onChange({ ...value, variant: e.target.value })}
          className={field}
        >
          <option value="none">none (No Directives)</option>
          <option value="computed">computed (Sophrosyne)</option>
          <option value="oracle">oracle (Sophrosyne-Oracle)</option>
        </select>
      </label>
    </>
  );
}

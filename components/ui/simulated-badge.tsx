/** Marks simulated data wherever it shows: the demo's runs are produced by the simulated policy, not by a model. */
export function SimulatedBadge({ className = "" }: { className?: string }) {
  return (
    <span
      className={`rounded bg-fuchsia-100 px-1.5 py-0.5 text-[11px] font-medium text-fuchsia-800 ${className}`}
      title="Produced by Metron's simulated policy (a deterministic stand-in for a model): simulated demo data, not a real agent"
    >
      simulated
    </span>
  );
}

export function isSimulated(config: unknown): boolean {
  return Boolean(config && typeof config === "object" && (config as { simulated?: unknown }).simulated);
}

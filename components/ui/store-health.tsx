import type { StoreHealth } from "@/lib/db/health";

/** On every page: a store that cannot be used is said plainly, with what to do (nothing when it is well). */
export function StoreHealthBanner({ health }: { health: StoreHealth }) {
  if (health.ok) return null;
  return (
    <div
      role="alert"
      data-testid="store-health"
      className="border-b border-red-300 bg-red-50 px-6 py-3 text-sm text-red-900"
    >
      <p className="mx-auto max-w-7xl">
        <strong>The store is not usable:</strong> {health.problem} ({health.where}). <strong>What to do:</strong>{" "}
        {health.advice}. Run <code>metron doctor</code> to check again.
      </p>
    </div>
  );
}

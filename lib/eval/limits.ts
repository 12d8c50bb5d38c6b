/** Limits of the SQL sandbox, from the environment (docs/configuration.md). */
function positive(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

export function sandboxLimits() {
  return {
    timeoutMs: positive("METRON_SQL_TIMEOUT_MS", 30_000),
    maxRows: Math.floor(positive("METRON_SQL_MAX_ROWS", 100_000)),
    workers: Math.floor(positive("METRON_SQL_WORKERS", 2)),
  };
}

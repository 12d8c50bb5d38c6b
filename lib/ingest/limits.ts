/** Ingest limits, from the environment; documented in docs/configuration.md. */
function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

export function ingestLimits() {
  return {
    /** A line longer than this is reported and skipped. Default 64 MB. */
    maxLineBytes: positiveInt("METRON_MAX_LINE_BYTES", 64 * 1024 * 1024),
    /** How many errors a report carries inline; all are stored and downloadable. */
    maxReportedErrors: positiveInt("METRON_MAX_REPORTED_ERRORS", 1000),
  };
}

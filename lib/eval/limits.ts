/** Limits of the SQL sandbox, from the environment (docs/configuration.md). */
import { positiveNumber } from "@/lib/config/env";

export function sandboxLimits() {
  return {
    timeoutMs: positiveNumber("METRON_SQL_TIMEOUT_MS", 30_000),
    maxRows: positiveNumber("METRON_SQL_MAX_ROWS", 100_000),
    workers: positiveNumber("METRON_SQL_WORKERS", 2),
  };
}

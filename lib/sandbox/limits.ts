/** Limits of the SQL sandbox, from the environment (docs/configuration.md). */
import { positiveNumber } from "@/lib/config/env";

export function sandboxLimits() {
  return {
    timeoutMs: positiveNumber("METRON_SQL_TIMEOUT_MS", 30_000),
    maxRows: positiveNumber("METRON_SQL_MAX_ROWS", 100_000),
    /** Bytes of one result (values summed) and of one value. */
    maxResultBytes: positiveNumber("METRON_SQL_MAX_RESULT_BYTES", 64 * 1024 * 1024),
    maxValueBytes: positiveNumber("METRON_SQL_MAX_VALUE_BYTES", 8 * 1024 * 1024),
    /** The SQL text itself. */
    maxSqlBytes: positiveNumber("METRON_SQL_MAX_SQL_BYTES", 1024 * 1024),
    /** The address space of each worker process (ulimit -v). */
    memoryMb: positiveNumber("METRON_SQL_MEMORY_MB", 1536),
    workers: positiveNumber("METRON_SQL_WORKERS", 2),
  };
}

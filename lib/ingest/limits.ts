/** Ingest limits, from the environment; documented in docs/configuration.md. */
import { positiveNumber } from "@/lib/config/env";

export function ingestLimits() {
  return {
    /** A line longer than this is reported and skipped. Default 64 MB. */
    maxLineBytes: positiveNumber("METRON_MAX_LINE_BYTES", 64 * 1024 * 1024),
    /** How many errors a report carries inline; all are stored and downloadable. */
    maxReportedErrors: positiveNumber("METRON_MAX_REPORTED_ERRORS", 1000),
  };
}

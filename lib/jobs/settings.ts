/** The job queue's settings, from the environment (docs/configuration.md). */
import { nonNegativeNumber, positiveNumber } from "@/lib/config/env";

export function jobSettings() {
  return {
    leaseMs: positiveNumber("METRON_JOB_LEASE_MS", 60_000),
    pollMs: positiveNumber("METRON_JOB_POLL_MS", 500),
    attempts: positiveNumber("METRON_JOB_ATTEMPTS", 3),
    maxRateLimited: positiveNumber("METRON_JOB_MAX_RATE_LIMITED", 10),
    backoffMs: nonNegativeNumber("METRON_JOB_BACKOFF_MS", 2000),
    rerunConcurrency: positiveNumber("METRON_RERUN_CONCURRENCY", 2),
    retentionMs: positiveNumber("METRON_RERUN_RETENTION_MS", 3_600_000),
    simulatedDelayMs: nonNegativeNumber("METRON_SIM_STEP_DELAY_MS", 300),
    providerRetries: nonNegativeNumber("METRON_PROVIDER_RETRIES", 2),
  };
}

export type JobSettings = ReturnType<typeof jobSettings>;

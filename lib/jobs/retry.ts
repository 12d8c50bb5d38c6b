/**
 * What becomes of a job that ended, as a policy rather than a chain of cases: a provider's 429 goes back to the
 * queue after its `retry-after` (not counted as an attempt, at most `rateLimit.maxTimes`); a transient failure (5xx,
 * 408, a broken connection) is tried again with exponential back-off until `attempts`; a pause or a worker's stop
 * puts it back uncounted; anything else is finished as it is (a 4xx will not change, a harness's failure is final).
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (METRON_JOB_ATTEMPTS). */
  attempts: number;
  /** The wait before attempt n + 1: `baseMs` × 2^(n − 1) (METRON_JOB_BACKOFF_MS). */
  backoff: { kind: "exponential"; baseMs: number };
  /** HTTP 429: wait what the provider's `retry-after` says, else the back-off (METRON_JOB_MAX_RATE_LIMITED). */
  rateLimit: { wait: "retry-after"; maxTimes: number };
}

/** How a run of a job ended, as far as the policy cares. */
export interface Outcome {
  status: string;
  error?: string;
  /** Not to be tried again whatever the failure (a harness that failed fails again). */
  final?: boolean;
  failure?: { statusCode?: number; retryAfterMs?: number };
}

export interface Attempt {
  /** This attempt's number (1 for the first). */
  attempts: number;
  /** How many times the job was rate limited before. */
  rateLimited: number;
  abortedFor?: "cancel" | "pause" | "shutdown";
  /** Part of a sweep: a cancel while running records it as cancelled (a single rerun is stored as it ended). */
  inSweep: boolean;
  workerId: string;
}

export type Decision =
  | { action: "requeue"; why: "retry" | "rate-limit" | "pause"; delayMs: number; error: string }
  | { action: "cancel"; error: string }
  | { action: "finish" };

export function retryPolicy(settings: { attempts: number; backoffMs: number; maxRateLimited: number }): RetryPolicy {
  return {
    attempts: settings.attempts,
    backoff: { kind: "exponential", baseMs: settings.backoffMs },
    rateLimit: { wait: "retry-after", maxTimes: settings.maxRateLimited },
  };
}

const backoff = (policy: RetryPolicy, n: number) => policy.backoff.baseMs * 2 ** n;

export function decide(policy: RetryPolicy, outcome: Outcome, attempt: Attempt): Decision {
  if (outcome.status === "cancelled") {
    if (attempt.abortedFor === "pause")
      return {
        action: "requeue",
        why: "pause",
        delayMs: 0,
        error: "paused while running; run again from scratch on resume",
      };
    if (attempt.abortedFor === "shutdown")
      return {
        action: "requeue",
        why: "pause",
        delayMs: 0,
        error: `its worker (${attempt.workerId}) stopped; run again from scratch`,
      };
    if (attempt.inSweep) return { action: "cancel", error: "cancelled while running" };
    return { action: "finish" };
  }
  if (outcome.status !== "error") return { action: "finish" };
  const code = outcome.failure?.statusCode;
  if (code === 429 && attempt.rateLimited < policy.rateLimit.maxTimes)
    return {
      action: "requeue",
      why: "rate-limit",
      delayMs: outcome.failure?.retryAfterMs ?? backoff(policy, attempt.rateLimited),
      error: `rate limited (HTTP 429): ${outcome.error}`,
    };
  const transient = !outcome.final && (!code || code >= 500 || code === 408);
  if (transient && attempt.attempts < policy.attempts)
    return {
      action: "requeue",
      why: "retry",
      delayMs: backoff(policy, attempt.attempts - 1),
      error: `attempt ${attempt.attempts}: ${outcome.error}`,
    };
  return { action: "finish" };
}

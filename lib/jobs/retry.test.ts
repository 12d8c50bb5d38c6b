import { describe, expect, it } from "vitest";
import { decide, retryPolicy, type Attempt } from "./retry";

const policy = retryPolicy({ attempts: 3, backoffMs: 1000, maxRateLimited: 2 });
const first: Attempt = { attempts: 1, rateLimited: 0, inSweep: true, workerId: "w" };

describe("the retry policy", () => {
  it("waits a 429's retry-after, uncounted, until the rate limits allowed are spent", () => {
    const limited = { status: "error", error: "slow down", failure: { statusCode: 429, retryAfterMs: 7000 } };
    expect(decide(policy, limited, first)).toEqual({
      action: "requeue",
      why: "rate-limit",
      delayMs: 7000,
      error: "rate limited (HTTP 429): slow down",
    });
    // No retry-after: the back-off of the times it was limited.
    const bare = { status: "error", error: "x", failure: { statusCode: 429 } };
    expect(decide(policy, bare, { ...first, rateLimited: 1 })).toMatchObject({ why: "rate-limit", delayMs: 2000 });
    // Spent: a 429 is a 4xx like another, and is not tried again.
    expect(decide(policy, bare, { ...first, rateLimited: 2 })).toEqual({ action: "finish" });
  });

  it("tries a transient failure again with exponential back-off, until the attempts are spent", () => {
    for (const failure of [{ statusCode: 503 }, { statusCode: 408 }, {}]) {
      const outcome = { status: "error", error: "down", failure };
      expect(decide(policy, outcome, first)).toEqual({
        action: "requeue",
        why: "retry",
        delayMs: 1000,
        error: "attempt 1: down",
      });
      expect(decide(policy, outcome, { ...first, attempts: 2 })).toMatchObject({ delayMs: 2000 });
      expect(decide(policy, outcome, { ...first, attempts: 3 })).toEqual({ action: "finish" });
    }
  });

  it("finishes a 4xx, a final failure, a success and a single rerun's cancel as they are", () => {
    expect(decide(policy, { status: "error", failure: { statusCode: 400 } }, first)).toEqual({ action: "finish" });
    expect(decide(policy, { status: "error", final: true }, first)).toEqual({ action: "finish" });
    expect(decide(policy, { status: "done" }, first)).toEqual({ action: "finish" });
    expect(decide(policy, { status: "cancelled" }, { ...first, inSweep: false })).toEqual({ action: "finish" });
  });

  it("puts a paused job or one whose worker stopped back uncounted, and records a sweep job's cancel", () => {
    expect(decide(policy, { status: "cancelled" }, { ...first, abortedFor: "pause" })).toMatchObject({
      action: "requeue",
      why: "pause",
      delayMs: 0,
    });
    expect(decide(policy, { status: "cancelled" }, { ...first, abortedFor: "shutdown" })).toMatchObject({
      why: "pause",
      error: "its worker (w) stopped; run again from scratch",
    });
    expect(decide(policy, { status: "cancelled" }, { ...first, abortedFor: "cancel" })).toEqual({
      action: "cancel",
      error: "cancelled while running",
    });
  });
});

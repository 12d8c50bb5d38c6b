/**
 * Sign-in attempts (issue 28): a client (clientOf) that fails METRON_SIGNIN_MAX_FAILURES times (default 10) within a
 * minute is refused for the rest of that minute, so tokens cannot be guessed at the server's speed. Per process.
 */
import { positiveNumber } from "@/lib/config/env";

const WINDOW_MS = 60_000;
const failures = new Map<string, number[]>();

/** Milliseconds until `client` may try again, or 0. */
export function signInWait(client: string, now = Date.now()): number {
  const recent = (failures.get(client) ?? []).filter((t) => now - t < WINDOW_MS);
  if (recent.length) failures.set(client, recent);
  else failures.delete(client);
  return recent.length >= positiveNumber("METRON_SIGNIN_MAX_FAILURES", 10) ? WINDOW_MS - (now - recent[0]) : 0;
}

export function recordSignInFailure(client: string, now = Date.now()): void {
  failures.set(client, [...(failures.get(client) ?? []), now]);
  if (failures.size > 10_000) failures.delete(failures.keys().next().value!); // bounded, oldest client first
}

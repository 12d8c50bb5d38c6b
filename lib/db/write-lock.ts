/**
 * Waiting for SQLite's write lock without blocking the event loop. better-sqlite3 is synchronous: with a busy
 * timeout, a server thread that waits for a CLI ingest's lock would stop answering every request. Here the lock
 * is tried with a tiny busy timeout and retried after an asynchronous pause, up to METRON_BUSY_TIMEOUT_MS.
 */
import type Database from "better-sqlite3";
import { positiveNumber } from "@/lib/config/env";

const isBusy = (e: unknown) =>
  (e as { code?: string }).code === "SQLITE_BUSY" || /database is locked/i.test((e as Error).message ?? "");

export class WriteLockTimeoutError extends Error {}

/** Runs `BEGIN IMMEDIATE`, waiting asynchronously while another connection writes. */
export async function beginImmediate(sqlite: Database.Database): Promise<void> {
  const deadline = Date.now() + positiveNumber("METRON_BUSY_TIMEOUT_MS", 300_000);
  const previous = sqlite.pragma("busy_timeout", { simple: true }) as number;
  sqlite.pragma("busy_timeout = 10");
  try {
    for (let pause = 10; ; pause = Math.min(250, pause * 2)) {
      try {
        sqlite.exec("BEGIN IMMEDIATE");
        return;
      } catch (e) {
        if (!isBusy(e)) throw e;
        if (Date.now() > deadline)
          throw new WriteLockTimeoutError("the store stayed locked by another writer past METRON_BUSY_TIMEOUT_MS");
        await new Promise((r) => setTimeout(r, pause));
      }
    }
  } finally {
    sqlite.pragma(`busy_timeout = ${previous}`);
  }
}

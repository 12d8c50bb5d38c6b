/**
 * The durable job queue, kept in the store (table `rerun_jobs`: single reruns and sweep jobs; `sweeps` groups them).
 * A worker claims a queued job with one atomic UPDATE, holds it under a lease it renews, and records how it ended.
 * A worker that dies (`kill -9`, a restart) leaves its jobs `running`: the next worker takes them back — at once when
 * their process is gone from this machine, else when the lease runs out — and they run again from scratch.
 */
import { hostname } from "node:os";
import type { Sql } from "@/lib/db/sql";

/** What the queue reads of a job row (the job's own columns come with it). */
export interface QueueRow {
  id: string;
  sweep_id: string | null;
  question_id: string | null;
  sample: number | null;
  attempts: number;
  rate_limited: number;
}

/** What a finished job records. */
export interface JobRecord {
  traceId?: string | null;
  tokens?: number | null;
  costUsd?: number | null;
  sample?: number | null;
}

const now = () => Date.now();
/** Timestamps are written by the worker (the same text on both engines). */
export const isoNow = () => new Date().toISOString();
const sameSweep = (sql: Sql) => (sql.dialect === "postgres" ? "sweep_id IS NOT DISTINCT FROM ?" : "sweep_id IS ?");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class JobQueue {
  constructor(
    /** `host:pid:tag`: whose jobs are whose, and whether their process still lives. */
    readonly workerId: string,
    private readonly leaseMs: number,
  ) {}

  /** Takes back jobs whose worker is gone: its process is dead on this machine, or its lease ran out. */
  async reclaim(db: Sql, mine: ReadonlySet<string>): Promise<void> {
    const held = await db.all<{ id: string; worker: string | null; leaseUntil: number | null }>(
      "SELECT id, worker, lease_until AS leaseUntil FROM rerun_jobs WHERE state = 'running'",
    );
    const host = hostname();
    for (const j of held) {
      if (j.worker === this.workerId && mine.has(j.id)) continue;
      const [h, pid] = (j.worker ?? "").split(":");
      const dead =
        j.worker === this.workerId ||
        j.leaseUntil === null ||
        j.leaseUntil < now() ||
        (h === host && Number(pid) !== process.pid && !alive(Number(pid)));
      if (dead)
        await db.run(
          `UPDATE rerun_jobs SET state = 'queued', worker = NULL, lease_until = NULL, error = ? WHERE id = ? AND state = 'running' AND ${db.dialect === "postgres" ? "worker IS NOT DISTINCT FROM ?" : "worker IS ?"}`,
          [`taken back from ${j.worker ?? "no worker"}, which stopped; run again from scratch`, j.id, j.worker],
        );
    }
  }

  async renewLeases(db: Sql, ids: Iterable<string>): Promise<void> {
    for (const id of ids)
      await db.run("UPDATE rerun_jobs SET lease_until = ? WHERE id = ? AND worker = ?", [
        now() + this.leaseMs,
        id,
        this.workerId,
      ]);
  }

  /**
   * Claims the next queued job of a sweep (or of the single reruns, `sweepId` null) atomically; null when none is
   * due. SQLite: one UPDATE under its single writer. PostgreSQL: the row is locked with `FOR UPDATE SKIP LOCKED`, so
   * workers on other machines claiming at the same moment each take a different job, never the same one.
   */
  async claim<R extends QueueRow>(db: Sql, sweepId: string | null): Promise<R | null> {
    const pick =
      db.dialect === "postgres"
        ? `SELECT id FROM rerun_jobs WHERE state = 'queued' AND ${sameSweep(db)} AND coalesce(not_before, 0) <= ?
           ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`
        : `SELECT id FROM rerun_jobs WHERE state = 'queued' AND ${sameSweep(db)} AND coalesce(not_before, 0) <= ?
           ORDER BY created_at, rowid LIMIT 1`;
    return (
      (await db.get<R>(
        `UPDATE rerun_jobs SET state = 'running', worker = ?, lease_until = ?, attempts = attempts + 1, started_at = ?
         WHERE id = (${pick}) AND state = 'queued'
         RETURNING *`,
        [this.workerId, now() + this.leaseMs, isoNow(), sweepId, now()],
      )) ?? null
    );
  }

  async runningCount(db: Sql, sweepId: string | null): Promise<number> {
    return (
      (
        await db.get<{ n: number }>(
          `SELECT count(*) AS n FROM rerun_jobs WHERE state = 'running' AND ${sameSweep(db)}`,
          [sweepId],
        )
      )?.n ?? 0
    );
  }

  /** Single reruns waiting. */
  async queuedReruns(db: Sql): Promise<number> {
    return (
      (await db.get<{ n: number }>("SELECT count(*) AS n FROM rerun_jobs WHERE state = 'queued' AND sweep_id IS NULL"))
        ?.n ?? 0
    );
  }

  /** A sweep's jobs still queued or running. */
  async left(db: Sql, sweepId: string): Promise<number> {
    return (
      (
        await db.get<{ n: number }>(
          "SELECT count(*) AS n FROM rerun_jobs WHERE sweep_id = ? AND state IN ('queued', 'running')",
          [sweepId],
        )
      )?.n ?? 0
    );
  }

  /** Back to the queue after `delayMs`; a pause or a rate limit does not count as an attempt. */
  async requeue(sql: Sql, jobId: string, error: string, delayMs: number, why: "retry" | "rate-limit" | "pause") {
    // Writes are transactions: on SQLite their lock is awaited, not waited for (an upload in this process may hold it).
    await sql.transaction((tx) =>
      tx.run(
        `UPDATE rerun_jobs SET state = 'queued', worker = NULL, lease_until = NULL, error = ?, not_before = ?,
         attempts = attempts - ?, rate_limited = rate_limited + ? WHERE id = ? AND state = 'running' AND worker = ?`,
        [error, now() + delayMs, why === "retry" ? 0 : 1, why === "rate-limit" ? 1 : 0, jobId, this.workerId],
      ),
    );
  }

  /** Records how a job ended; false when it was taken back meanwhile (another worker runs it now). */
  async finish(
    sql: Sql,
    jobId: string,
    state: "done" | "failed" | "cancelled",
    error: string | null,
    record: JobRecord = {},
  ): Promise<boolean> {
    return sql.transaction(
      async (tx) =>
        (
          await tx.run(
            `UPDATE rerun_jobs SET state = ?, error = ?, result_trace_id = ?, tokens = ?, cost_usd = ?, sample = coalesce(?, sample),
             worker = NULL, lease_until = NULL, finished_at = ? WHERE id = ? AND state = 'running' AND worker = ?`,
            [
              state,
              error,
              record.traceId ?? null,
              record.tokens ?? null,
              record.costUsd ?? null,
              record.sample ?? null,
              isoNow(),
              jobId,
              this.workerId,
            ],
          )
        ).changes > 0,
    );
  }
}

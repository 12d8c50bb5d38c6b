/**
 * The durable job queue, kept in the store (table `jobs`: single reruns and sweep jobs; `sweeps` groups them).
 * A worker claims a queued job with one atomic UPDATE, holds it under a lease it renews, and records how it ended.
 * A worker that dies (`kill -9`, a restart) leaves its jobs `running`: the next worker takes them back — at once when
 * their process is gone from this machine, else when the lease runs out — and they run again from scratch.
 */
import { hostname } from "node:os";
import type { Sql } from "@/lib/db/sql";
import { count, countN, many, one, qb, raw, write } from "@/lib/db/typed";

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
    const held = await many(
      db,
      qb(db).selectFrom("jobs").select(["id", "worker", "lease_until"]).where("state", "=", "running"),
    );
    const host = hostname();
    for (const j of held) {
      if (j.worker === this.workerId && mine.has(j.id)) continue;
      const [h, pid] = (j.worker ?? "").split(":");
      const dead =
        j.worker === this.workerId ||
        j.lease_until === null ||
        j.lease_until < now() ||
        (h === host && Number(pid) !== process.pid && !alive(Number(pid)));
      if (dead)
        await write(
          db,
          qb(db)
            .updateTable("jobs")
            .set({
              state: "queued",
              worker: null,
              lease_until: null,
              error: `taken back from ${j.worker ?? "no worker"}, which stopped; run again from scratch`,
            })
            .where("id", "=", j.id)
            .where("state", "=", "running")
            .where("worker", "is not distinct from", j.worker),
        );
    }
  }

  /** One write for all of them. */
  async renewLeases(db: Sql, ids: Iterable<string>): Promise<void> {
    const list = [...ids];
    if (!list.length) return;
    await write(
      db,
      qb(db)
        .updateTable("jobs")
        .set({ lease_until: now() + this.leaseMs })
        .where("id", "in", list)
        .where("worker", "=", this.workerId),
    );
  }

  /**
   * Claims the next queued job of a sweep (or of the single reruns, `sweepId` null) atomically; null when none is
   * due. SQLite: one UPDATE under its single writer. PostgreSQL: the row is locked with `FOR UPDATE SKIP LOCKED`, so
   * workers on other machines claiming at the same moment each take a different job, never the same one.
   */
  async claim<R extends QueueRow>(db: Sql, sweepId: string | null): Promise<R | null> {
    const q = qb(db);
    let pick = q
      .selectFrom("jobs")
      .select("id")
      .where("state", "=", "queued")
      .where("sweep_id", "is not distinct from", sweepId)
      .where((eb) => eb.fn.coalesce("not_before", eb.lit(0)), "<=", now())
      .orderBy("created_at")
      // SQLite: the order rows were queued in; PostgreSQL has no rowid, and ids of one moment are unordered anyway.
      .orderBy(db.dialect === "postgres" ? raw`id` : raw`rowid`)
      .limit(1);
    if (db.dialect === "postgres") pick = pick.forUpdate().skipLocked();
    const claimed = await one(
      db,
      q
        .updateTable("jobs")
        .set((eb) => ({
          state: "running",
          worker: this.workerId,
          lease_until: now() + this.leaseMs,
          attempts: eb("attempts", "+", 1),
          started_at: isoNow(),
        }))
        .where("id", "=", pick)
        .where("state", "=", "queued")
        .returningAll(),
    );
    return (claimed as R | undefined) ?? null;
  }

  async runningCount(db: Sql, sweepId: string | null): Promise<number> {
    return count(
      db,
      this.counted(db).where("state", "=", "running").where("sweep_id", "is not distinct from", sweepId),
    );
  }

  /** Single reruns waiting. */
  async queuedReruns(db: Sql): Promise<number> {
    return count(db, this.counted(db).where("state", "=", "queued").where("sweep_id", "is", null));
  }

  /** A sweep's jobs still queued or running. */
  async left(db: Sql, sweepId: string): Promise<number> {
    return count(db, this.counted(db).where("sweep_id", "=", sweepId).where("state", "in", ["queued", "running"]));
  }

  private counted(db: Sql) {
    return qb(db).selectFrom("jobs").select(countN);
  }

  /** Back to the queue after `delayMs`; a pause or a rate limit does not count as an attempt. */
  async requeue(sql: Sql, jobId: string, error: string, delayMs: number, why: "retry" | "rate-limit" | "pause") {
    // Writes are transactions: on SQLite their lock is awaited, not waited for (an upload in this process may hold it).
    await sql.transaction((tx) =>
      write(
        tx,
        qb(tx)
          .updateTable("jobs")
          .set((eb) => ({
            state: "queued",
            worker: null,
            lease_until: null,
            error,
            not_before: now() + delayMs,
            attempts: eb("attempts", "-", why === "retry" ? 0 : 1),
            rate_limited: eb("rate_limited", "+", why === "rate-limit" ? 1 : 0),
          }))
          .where("id", "=", jobId)
          .where("state", "=", "running")
          .where("worker", "=", this.workerId),
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
          await write(
            tx,
            qb(tx)
              .updateTable("jobs")
              .set((eb) => ({
                state,
                error,
                result_trace_id: record.traceId ?? null,
                tokens: record.tokens ?? null,
                cost_usd: record.costUsd ?? null,
                sample: eb.fn.coalesce(eb.val(record.sample ?? null), "sample"),
                worker: null,
                lease_until: null,
                finished_at: isoNow(),
              }))
              .where("id", "=", jobId)
              .where("state", "=", "running")
              .where("worker", "=", this.workerId),
          )
        ).changes > 0,
    );
  }
}

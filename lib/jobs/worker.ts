/**
 * A job worker: polls the queue (lib/jobs/queue.ts), claims what its sweeps' concurrency and its own limit allow,
 * runs each job through its `JobRunner`, and records the end the retry policy (lib/jobs/retry.ts) decides. What a job
 * is — an agent loop or a harness on one question, its trace stored and evaluated — is the runner's (lib/agent/jobs.ts).
 */
import { randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { scrubSecrets } from "@/lib/config/secrets";
import type { Sql } from "@/lib/db/sql";
import { many, qb, write } from "@/lib/db/typed";
import { emit, releaseFinished, trackJob, type LiveJob, type QueueEvent } from "./live";
import { isoNow, JobQueue, type JobRecord, type QueueRow } from "./queue";
import { decide, retryPolicy, type Outcome } from "./retry";
import { jobSettings } from "./settings";

/** A store a worker opens (the opener's caller closes it). */
export type StoreOpener = () => Sql | Promise<Sql>;

/** A sweep as the worker reads it: its state, its concurrency, and what its budget is checked against. */
export interface SweepRow {
  runId: string;
  state: string;
  concurrency: number;
  budget: string;
  provider: string;
  createdAt: string;
}

export interface JobRunner<R extends QueueRow, O extends Outcome, E extends { type: string }> {
  /** Runs the job (no store writes of its own job record). */
  run(sql: Sql, row: R, job: LiveJob<E | QueueEvent>): Promise<O>;
  /** Stores what a finished run produced; the record to write and the event that announces it. */
  complete(sql: Sql, row: R, outcome: O): Promise<{ record: JobRecord; event: E }>;
  /** Why a sweep may start no more jobs (its budget), or null. */
  stopReason(sql: Sql, sweep: SweepRow): Promise<string | null>;
  /** Ends a sweep early with that reason. */
  stopSweep(sql: Sql, sweepId: string, reason: string): Promise<void>;
  /**
   * After a sweep's last job (its run is complete), or once a sweep stopped early (budget, cancel) has no job running
   * in this worker: what its run's pages will read, made ahead. True when all of it is stored; false to be called
   * again at a later pass (a write the store refused).
   */
  sweepFinished?(sql: Sql, sweepId: string): Promise<boolean>;
}

/** How many times a pass makes a sweep's views before it leaves them to the run's first view. */
const VIEW_ATTEMPTS = 3;

export class JobWorker<R extends QueueRow, O extends Outcome, E extends { type: string }> {
  readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private store: Promise<Sql> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  /** A kick came while a pass ran (a job ended meanwhile): one more pass right after it, not at the next poll. */
  private kickedWhileTicking = false;
  private stopped = false;
  private readonly running = new Map<string, LiveJob<E | QueueEvent>>();
  private readonly settings = jobSettings();
  private readonly policy = retryPolicy(this.settings);
  private readonly queue = new JobQueue(this.id, this.settings.leaseMs);
  private readonly waiters = new Set<() => void>();
  /** Connections of finished jobs, reused by the next (opening one per job re-prepared every statement). */
  private readonly idleStores: Sql[] = [];
  /** When the last pass took back dead workers' jobs and renewed this worker's leases. */
  private housekept = -Infinity;
  /**
   * Sweeps whose run's views are due (ended, or stopped early by budget or cancel), made once none of their jobs runs
   * here, with the attempts made: an attempt that left a view unstored (on SQLite the worker's connection never waits
   * for the lock, and a write failed while a job wrote) is made again at a later pass, at most `VIEW_ATTEMPTS` times.
   */
  private readonly viewsDue = new Map<string, number>();
  /**
   * Cancelled sweeps this worker has seen (the pass lists them all): one cancelled while it works is handed to
   * `viewsDue` once; those already cancelled at its first pass are left to the server's pass over every run
   * (lib/views/ahead.ts), not made at a start.
   */
  private readonly seenCancelled = new Set<string>();
  private firstPass = true;

  constructor(
    private readonly openStore: StoreOpener,
    private readonly runner: JobRunner<R, O, E>,
    /** Work on this sweep only (the CLI); the server's worker takes every sweep and rerun. */
    private readonly only?: string,
    /** At most this many jobs at once in this worker (`metron worker --concurrency`), over the sweeps' own limits. */
    private readonly maxJobs = Infinity,
  ) {}

  /**
   * The worker's own connection. On SQLite its bookkeeping never waits for the lock (better-sqlite3 would wait
   * synchronously, stopping the server): a busy store makes a pass fail quietly, and the next pass tries again.
   */
  private db(): Promise<Sql> {
    this.store ??= Promise.resolve(this.openStore()).then((sql) => {
      sql.connection?.pragma("busy_timeout = 0");
      return sql;
    });
    return this.store;
  }

  /** Runs a pass now (after a job was queued or a sweep resumed) and keeps polling. */
  kick(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.kickedWhileTicking = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), 0);
    this.timer.unref();
  }

  /** Resolves when a pass finds nothing of its own running and nothing it can take (for the CLI). */
  idle(): Promise<void> {
    return new Promise((resolve) => this.waiters.add(resolve));
  }

  /** Stops taking jobs; the jobs running here go back to the queue (run again from scratch by the next worker). */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const job of this.running.values()) {
      job.abortedFor ??= "shutdown";
      job.controller.abort();
    }
    while (this.running.size) await new Promise((r) => setTimeout(r, 20));
    for (const sql of this.idleStores.splice(0)) await sql.close();
    const store = this.store;
    this.store = null;
    if (store) await (await store).close();
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    if (this.ticking) {
      this.kickedWhileTicking = true;
      return;
    }
    this.ticking = true;
    this.kickedWhileTicking = false;
    let busy = false;
    try {
      const db = await this.db();
      // At most once a poll interval (as often as an idle worker polls), not on every pass: a pass runs each time a
      // job ends, and these writes were most of the queue's cost per job. A lease is still renewed at least every
      // `pollMs`, well inside `leaseMs`.
      if (performance.now() - this.housekept >= this.settings.pollMs) {
        await this.queue.reclaim(db, new Set(this.running.keys()));
        await this.queue.renewLeases(db, this.running.keys());
        this.housekept = performance.now();
      }
      busy = (await this.sweepPass(db)) || busy;
      if (!this.only) busy = (await this.rerunPass(db)) || busy;
      releaseFinished();
    } catch (e) {
      if ((e as { code?: string }).code !== "SQLITE_BUSY")
        console.error(`metron jobs: ${scrubSecrets((e as Error).message)}`);
      busy = true;
    } finally {
      this.ticking = false;
    }
    // A sweep stopped early whose last job ended during this pass (after the pass looked) still has its views to
    // make: the next pass makes them, and only then is the worker idle.
    if (!busy && this.running.size === 0 && this.viewsDue.size === 0) {
      for (const w of this.waiters) w();
      this.waiters.clear();
    }
    if (!this.stopped) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => void this.tick(), this.kickedWhileTicking ? 0 : this.settings.pollMs);
      this.timer.unref();
    }
  }

  private async rerunPass(db: Sql): Promise<boolean> {
    let busy = false;
    while (
      (await this.queue.runningCount(db, null)) < this.settings.rerunConcurrency &&
      this.running.size < this.maxJobs
    ) {
      const job = await this.queue.claim<R>(db, null);
      if (!job) break;
      busy = true;
      this.start(job);
    }
    return busy || (await this.queue.queuedReruns(db)) > 0;
  }

  private async sweepPass(db: Sql): Promise<boolean> {
    const only = this.only;
    const sweeps: SweepRow[] = await many(
      db,
      qb(db)
        .selectFrom("sweeps")
        .select(["run_id as runId", "state", "concurrency", "budget", "provider", "created_at as createdAt"])
        .where("state", "in", ["running", "paused", "cancelled"])
        .$if(only !== undefined, (q) => q.where("run_id", "=", only ?? "")),
    );
    let busy = false;
    for (const s of sweeps) {
      if (s.state !== "running") {
        // Cancelled: stop what runs here. Paused: what runs finishes, nothing new starts.
        if (s.state === "cancelled") {
          for (const job of this.running.values())
            if (job.sweepId === s.runId && !job.abortedFor) {
              job.abortedFor = "cancel";
              job.controller.abort();
            }
          if (!this.seenCancelled.has(s.runId)) {
            this.seenCancelled.add(s.runId);
            if (!this.firstPass) this.viewsDue.set(s.runId, 0);
          }
        }
        continue;
      }
      // What runs is read before the budget: a job that finishes between the two reads is then still counted as
      // running (nothing more starts this pass) and its tokens are in the budget; read the other way round, a job
      // could start past the budget (seen on PostgreSQL, where another connection finishes jobs meanwhile).
      let running = await this.queue.runningCount(db, s.runId);
      const stop = await this.runner.stopReason(db, s);
      if (stop) {
        await this.runner.stopSweep(db, s.runId, stop);
        this.viewsDue.set(s.runId, 0);
        continue;
      }
      while (running < s.concurrency && this.running.size < this.maxJobs) {
        const job = await this.queue.claim<R>(db, s.runId);
        if (!job) break;
        running++;
        this.start(job);
      }
      if ((await this.queue.left(db, s.runId)) === 0) {
        const ended = await write(
          db,
          qb(db)
            .updateTable("sweeps")
            .set({ state: "done", finished_at: isoNow() })
            .where("run_id", "=", s.runId)
            .where("state", "=", "running"),
        );
        if (ended.changes) this.viewsDue.set(s.runId, 0);
        // Its state moved since this pass read it (a cancel or a pause committed between the two reads): the next
        // pass reads it again, and a cancelled sweep's views are made then. Idle now, the worker would never see it.
        else busy = true;
      } else busy = true;
    }
    this.firstPass = false;
    // A sweep's run is as complete as it will get once no job of it runs here (a job that had its answer as the
    // cancel came stores its trace first): its run's views are made then.
    for (const [id, attempts] of this.viewsDue) {
      if ([...this.running.values()].some((j) => j.sweepId === id)) continue;
      const stored = await this.finished(db, id);
      if (stored || attempts + 1 >= VIEW_ATTEMPTS) {
        this.viewsDue.delete(id);
        if (!stored)
          console.error(
            `metron jobs: the views of sweep ${id} are not all stored after ${VIEW_ATTEMPTS} attempts; its first view computes them`,
          );
      } else this.viewsDue.set(id, attempts + 1);
    }
    return busy;
  }

  /** Makes a sweep's run's views; false when some are still not stored (tried again at a later pass). */
  private async finished(db: Sql, sweepId: string): Promise<boolean> {
    if (!this.runner.sweepFinished) return true;
    try {
      return await this.runner.sweepFinished(db, sweepId);
    } catch (e) {
      console.error(`metron jobs: after sweep ${sweepId}: ${scrubSecrets((e as Error).message)}`);
      return false;
    }
  }

  private start(row: R): void {
    const job = trackJob<E | QueueEvent>(row.id, row.sweep_id, row.question_id, row.sample);
    job.state = "running";
    job.controller = new AbortController();
    job.abortedFor = undefined;
    job.tokens = 0;
    this.running.set(row.id, job);
    emit<E | QueueEvent>(job, { type: "status", status: "running", attempt: row.attempts });
    void this.execute(row, job)
      .catch((e) => console.error(`metron jobs: ${scrubSecrets((e as Error).message)}`))
      .finally(() => {
        this.running.delete(row.id);
        this.kick();
      });
  }

  private async execute(row: R, job: LiveJob<E | QueueEvent>): Promise<void> {
    const sql = this.idleStores.pop() ?? (await this.openStore());
    let reusable = true;
    const end = () => {
      job.state = "finished";
      job.finishedAt = Date.now();
    };
    try {
      const outcome = await this.runner.run(sql, row, job);
      const decision = decide(this.policy, outcome, {
        attempts: row.attempts,
        rateLimited: row.rate_limited,
        abortedFor: job.abortedFor,
        inSweep: row.sweep_id !== null,
        workerId: this.id,
      });
      if (decision.action === "requeue") {
        await this.queue.requeue(sql, row.id, decision.error, decision.delayMs, decision.why);
        emit<E | QueueEvent>(job, { type: "status", status: "queued", retryInMs: decision.delayMs });
        job.state = "queued";
        return;
      }
      if (decision.action === "cancel") {
        await this.queue.finish(sql, row.id, "cancelled", decision.error);
        emit<E | QueueEvent>(job, { type: "failed", error: "cancelled" });
        return end();
      }
      const { record, event } = await this.runner.complete(sql, row, outcome);
      const error = outcome.error ? scrubSecrets(outcome.error) : null;
      const state = outcome.status === "error" ? "failed" : "done";
      if (await this.queue.finish(sql, row.id, state, error, record)) emit<E | QueueEvent>(job, event); // else taken back meanwhile
      end();
    } catch (e) {
      reusable = false; // a connection a job failed on is not lent again
      const message = scrubSecrets((e as Error).message);
      try {
        await this.queue.finish(sql, row.id, "failed", message);
      } catch {
        /* the store is gone: the event says it */
      }
      emit<E | QueueEvent>(job, { type: "failed", error: message });
      end();
    } finally {
      if (reusable && !this.stopped && !sql.connection?.inTransaction) this.idleStores.push(sql);
      else await sql.close();
    }
  }
}

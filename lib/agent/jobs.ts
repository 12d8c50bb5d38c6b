/**
 * Durable agent jobs: one question run through the agent loop, alone (a rerun) or as part of a sweep. The state
 * lives in the store (`rerun_jobs`, `sweeps`); this process only holds the event logs of the jobs it runs, so a
 * page can watch their steps arrive. A worker takes a queued job with one atomic UPDATE, holds it under a lease
 * it renews, and at the end stores the trace through the normal ingest path, evaluates it (EX) and records the
 * job as done or failed. A worker that dies (`kill -9`, a restart) leaves its jobs `running`: the next worker
 * takes them back — at once when their process is gone from this machine, else when the lease runs out — and
 * runs them from scratch, replacing any trace they had stored, so none is duplicated or lost.
 *
 * Retries: a provider's 429 goes back to the queue after its `retry-after` (without counting as an attempt, up
 * to METRON_JOB_MAX_RATE_LIMITED times); another provider error is retried with back-off until
 * METRON_JOB_ATTEMPTS attempts, and the last attempt's partial trace is kept. Sweeps add a concurrency, a
 * budget checked before each job starts, and pause, resume and cancel (lib/agent/sweeps.ts).
 */
import { createHash, randomUUID } from "node:crypto";
import { hostname } from "node:os";
import { nonNegativeNumber, positiveNumber } from "@/lib/config/env";
import { deleteTraces } from "@/lib/ingest/curate";
import type { Sql } from "@/lib/db/sql";
import { ingestStream } from "@/lib/ingest/ingest";
import { loadPrices } from "@/lib/ingest/prices-file";
import { loadQuestionFrom } from "@/lib/environment/database-info";
import { directivesFor, SYSTEM_OF, type Variant } from "@/lib/environment/directives";
import { SqlEnvironment } from "@/lib/environment/tools";
import { evaluateRun } from "@/lib/eval/evaluate-run";
import { costOf } from "@/lib/metrics/prices";
import { sharedSandbox } from "@/lib/sql/sandbox/sandbox";
import { runIdOf } from "@/lib/trace/hash";
import { directiveDeps } from "./directive-models";
import { runAgentLoop, type AgentLimits, type LoopResult } from "./loop";
import { languageModel, type ProviderId } from "./providers";
import { harnessModel, harnessProfile, runHarnessJob } from "./harnesses";
import { scrubSecrets, scrubValue } from "@/lib/config/secrets";
import { createSimulatedModel, SIMULATED_POLICIES } from "./simulated";
import { traceVerdict, type Verdict } from "./verdict";

export const RERUN_RUN_NAME = "Reruns";

export interface JobRow {
  id: string;
  trace_id: string | null;
  sweep_id: string | null;
  dataset_id: string | null;
  question_id: string | null;
  sample: number | null;
  client: string;
  provider: ProviderId;
  model: string;
  variant: Variant;
  /** A harness profile's name (lib/agent/harnesses.ts); null: Metron's own loop. */
  harness: string | null;
  limits: string | null;
  state: string;
  attempts: number;
  rate_limited: number;
}

export type JobEvent = { id: number } & (
  | { type: "status"; status: "queued" | "running"; position?: number; attempt?: number; retryInMs?: number }
  | { type: "step"; step: Record<string, unknown> }
  | {
      type: "done";
      status: string;
      error?: string;
      runId: string;
      traceId: string;
      questionId: string;
      sample: number;
      originalRunId?: string;
      originalSample?: number;
      verdict?: Verdict;
    }
  | { type: "failed"; error: string }
);
type EventBody = JobEvent extends infer E ? (E extends { id: number } ? Omit<E, "id"> : never) : never;

/** What this process holds of a job: its events, for pages that follow it live. */
export interface LiveJob {
  id: string;
  sweepId: string | null;
  questionId: string | null;
  sample: number | null;
  state: "queued" | "running" | "finished";
  events: JobEvent[];
  listeners: Set<(e: JobEvent) => void>;
  controller: AbortController;
  /** Why it was aborted: a cancel of the job or its sweep, or a pause. */
  abortedFor?: "cancel" | "pause" | "shutdown";
  tokens: number;
  finishedAt?: number;
}

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

interface Registry {
  live: Map<string, LiveJob>;
  worker?: JobWorker;
}
const g = globalThis as unknown as { metronJobs?: Registry };
const registry: Registry = (g.metronJobs ??= { live: new Map() });

export function liveJob(id: string): LiveJob | undefined {
  return registry.live.get(id);
}

/** The live record of a job, created when it is queued or taken by this process. */
export function trackJob(
  id: string,
  sweepId: string | null,
  questionId: string | null,
  sample: number | null,
): LiveJob {
  let job = registry.live.get(id);
  if (!job) {
    job = {
      id,
      sweepId,
      questionId,
      sample,
      state: "queued",
      events: [],
      listeners: new Set(),
      controller: new AbortController(),
      tokens: 0,
    };
    registry.live.set(id, job);
  }
  return job;
}

export function emit(job: LiveJob, body: EventBody): void {
  const event = { id: job.events.length, ...scrubValue(body) } as JobEvent;
  job.events.push(event);
  for (const l of job.listeners) l(event);
}

/** Releases the events of jobs finished longer ago than the retention period (their records stay). */
function releaseFinished(): void {
  const cutoff = Date.now() - jobSettings().retentionMs;
  for (const [id, job] of registry.live)
    if (job.state === "finished" && job.finishedAt !== undefined && job.finishedAt < cutoff) registry.live.delete(id);
}

const now = () => Date.now();
/** Timestamps are written by the worker (the same text on both engines). */
const isoNow = () => new Date().toISOString();

/** A store a worker opens (the opener's caller closes it). */
export type StoreOpener = () => Sql | Promise<Sql>;
const openSql = async (open: StoreOpener) => await open();
const sameSweep = (sql: Sql) => (sql.dialect === "postgres" ? "sweep_id IS NOT DISTINCT FROM ?" : "sweep_id IS ?");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

export class JobWorker {
  readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private store: Promise<Sql> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private ticking = false;
  private stopped = false;
  private readonly running = new Map<string, LiveJob>();
  private readonly settings = jobSettings();
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly openStore: StoreOpener,
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
    this.store ??= openSql(this.openStore).then((sql) => {
      sql.connection?.pragma("busy_timeout = 0");
      return sql;
    });
    return this.store;
  }

  /** Runs a pass now (after a job was queued or a sweep resumed) and keeps polling. */
  kick(): void {
    if (this.stopped) return;
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
    const store = this.store;
    this.store = null;
    if (store) await (await store).close();
  }

  private async tick(): Promise<void> {
    if (this.ticking || this.stopped) return;
    this.ticking = true;
    let busy = false;
    try {
      const db = await this.db();
      await this.reclaim(db);
      await this.renewLeases(db);
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
    if (!busy && this.running.size === 0) {
      for (const w of this.waiters) w();
      this.waiters.clear();
    }
    if (!this.stopped) {
      this.timer = setTimeout(() => void this.tick(), this.settings.pollMs);
      this.timer.unref();
    }
  }

  /** Takes back jobs whose worker is gone: its process is dead on this machine, or its lease ran out. */
  private async reclaim(db: Sql): Promise<void> {
    const held = await db.all<{ id: string; worker: string | null; leaseUntil: number | null }>(
      "SELECT id, worker, lease_until AS leaseUntil FROM rerun_jobs WHERE state = 'running'",
    );
    const host = hostname();
    for (const j of held) {
      if (j.worker === this.id && this.running.has(j.id)) continue;
      const [h, pid] = (j.worker ?? "").split(":");
      const dead =
        j.worker === this.id ||
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

  private async renewLeases(db: Sql): Promise<void> {
    for (const id of this.running.keys())
      await db.run("UPDATE rerun_jobs SET lease_until = ? WHERE id = ? AND worker = ?", [
        now() + this.settings.leaseMs,
        id,
        this.id,
      ]);
  }

  /** Claims the next queued job of a sweep (or of the single reruns) atomically; null when none is due. */
  /**
   * Claims the next queued job of a sweep (or of the single reruns) atomically; null when none is due. SQLite: one
   * UPDATE under its single writer. PostgreSQL: the row is locked with `FOR UPDATE SKIP LOCKED`, so workers on
   * other machines claiming at the same moment each take a different job, never the same one.
   */
  private async claim(db: Sql, sweepId: string | null): Promise<JobRow | null> {
    const pick =
      db.dialect === "postgres"
        ? `SELECT id FROM rerun_jobs WHERE state = 'queued' AND ${sameSweep(db)} AND coalesce(not_before, 0) <= ?
           ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`
        : `SELECT id FROM rerun_jobs WHERE state = 'queued' AND ${sameSweep(db)} AND coalesce(not_before, 0) <= ?
           ORDER BY created_at, rowid LIMIT 1`;
    return (
      (await db.get<JobRow>(
        `UPDATE rerun_jobs SET state = 'running', worker = ?, lease_until = ?, attempts = attempts + 1, started_at = ?
         WHERE id = (${pick}) AND state = 'queued'
         RETURNING *`,
        [this.id, now() + this.settings.leaseMs, isoNow(), sweepId, now()],
      )) ?? null
    );
  }

  private async runningCount(db: Sql, sweepId: string | null): Promise<number> {
    return (
      (
        await db.get<{ n: number }>(
          `SELECT count(*) AS n FROM rerun_jobs WHERE state = 'running' AND ${sameSweep(db)}`,
          [sweepId],
        )
      )?.n ?? 0
    );
  }

  private async rerunPass(db: Sql): Promise<boolean> {
    let busy = false;
    while ((await this.runningCount(db, null)) < this.settings.rerunConcurrency && this.running.size < this.maxJobs) {
      const job = await this.claim(db, null);
      if (!job) break;
      busy = true;
      this.start(job);
    }
    const queued =
      (await db.get<{ n: number }>("SELECT count(*) AS n FROM rerun_jobs WHERE state = 'queued' AND sweep_id IS NULL"))
        ?.n ?? 0;
    return busy || queued > 0;
  }

  private async sweepPass(db: Sql): Promise<boolean> {
    const sweeps = await db.all<{
      runId: string;
      state: string;
      concurrency: number;
      budget: string;
      provider: string;
      createdAt: string;
    }>(
      `SELECT run_id AS runId, state, concurrency, budget, provider, created_at AS createdAt FROM sweeps WHERE state IN ('running', 'paused', 'cancelled')${this.only ? " AND run_id = ?" : ""}`,
      this.only ? [this.only] : [],
    );
    let busy = false;
    for (const s of sweeps) {
      if (s.state !== "running") {
        // Cancelled: stop what runs here. Paused: what runs finishes, nothing new starts.
        if (s.state === "cancelled")
          for (const job of this.running.values())
            if (job.sweepId === s.runId && !job.abortedFor) {
              job.abortedFor = "cancel";
              job.controller.abort();
            }
        continue;
      }
      const stop = await budgetReached(db, s.runId, JSON.parse(s.budget), s.createdAt, s.provider);
      if (stop) {
        await stopSweep(db, s.runId, "budget", `not run: the sweep's budget was reached (${stop})`);
        continue;
      }
      let running = await this.runningCount(db, s.runId);
      while (running < s.concurrency && this.running.size < this.maxJobs) {
        const job = await this.claim(db, s.runId);
        if (!job) break;
        running++;
        this.start(job);
      }
      const left =
        (
          await db.get<{ n: number }>(
            "SELECT count(*) AS n FROM rerun_jobs WHERE sweep_id = ? AND state IN ('queued', 'running')",
            [s.runId],
          )
        )?.n ?? 0;
      if (left === 0)
        await db.run("UPDATE sweeps SET state = 'done', finished_at = ? WHERE run_id = ? AND state = 'running'", [
          isoNow(),
          s.runId,
        ]);
      else busy = true;
    }
    return busy;
  }

  private start(row: JobRow): void {
    const job = trackJob(row.id, row.sweep_id, row.question_id, row.sample);
    job.state = "running";
    job.controller = new AbortController();
    job.abortedFor = undefined;
    job.tokens = 0;
    this.running.set(row.id, job);
    emit(job, { type: "status", status: "running", attempt: row.attempts });
    void this.execute(row, job)
      .catch((e) => console.error(`metron jobs: ${scrubSecrets((e as Error).message)}`))
      .finally(() => {
        this.running.delete(row.id);
        this.kick();
      });
  }

  private async execute(row: JobRow, job: LiveJob): Promise<void> {
    const sql = await openSql(this.openStore);
    const mine = "id = ? AND state = 'running' AND worker = ?";
    /** Back to the queue; a pause or a rate limit does not count as an attempt. */
    // Writes are transactions: on SQLite their lock is awaited, not waited for (an upload in this process may hold it).
    const requeue = async (error: string, delayMs: number, why: "retry" | "rate-limit" | "pause") => {
      await sql.transaction((tx) =>
        tx.run(
          `UPDATE rerun_jobs SET state = 'queued', worker = NULL, lease_until = NULL, error = ?, not_before = ?,
           attempts = attempts - ?, rate_limited = rate_limited + ? WHERE ${mine}`,
          [error, now() + delayMs, why === "retry" ? 0 : 1, why === "rate-limit" ? 1 : 0, row.id, this.id],
        ),
      );
      emit(job, { type: "status", status: "queued", retryInMs: delayMs });
      job.state = "queued";
    };
    const finish = async (
      state: "done" | "failed" | "cancelled",
      error: string | null,
      extra: Partial<Finished> = {},
    ) =>
      sql.transaction(
        async (tx) =>
          (
            await tx.run(
              `UPDATE rerun_jobs SET state = ?, error = ?, result_trace_id = ?, tokens = ?, cost_usd = ?, sample = coalesce(?, sample),
           worker = NULL, lease_until = NULL, finished_at = ? WHERE ${mine}`,
              [
                state,
                error,
                extra.traceId ?? null,
                extra.tokens ?? null,
                extra.costUsd ?? null,
                extra.sample ?? null,
                isoNow(),
                row.id,
                this.id,
              ],
            )
          ).changes > 0,
      );
    const end = () => {
      job.state = "finished";
      job.finishedAt = now();
    };
    try {
      const result = row.harness
        ? await runHarnessJobLoop(sql, row, job)
        : await runJobLoop(sql, row, job, this.settings);
      const { failure } = result;
      const s = this.settings;
      if (result.status === "cancelled" && job.abortedFor === "pause") {
        await requeue("paused while running; run again from scratch on resume", 0, "pause");
        return;
      }
      if (result.status === "cancelled" && job.abortedFor === "shutdown") {
        await requeue(`its worker (${this.id}) stopped; run again from scratch`, 0, "pause");
        return;
      }
      if (result.status === "cancelled" && row.sweep_id) {
        await finish("cancelled", "cancelled while running");
        emit(job, { type: "failed", error: "cancelled" });
        return end();
      }
      if (result.status === "error" && failure?.statusCode === 429 && row.rate_limited < s.maxRateLimited) {
        await requeue(
          `rate limited (HTTP 429): ${result.error}`,
          failure.retryAfterMs ?? s.backoffMs * 2 ** row.rate_limited,
          "rate-limit",
        );
        return;
      }
      // Transient failures (5xx, 408, a broken connection) are tried again; a 4xx will not change.
      const transient =
        !result.final && (!failure?.statusCode || failure.statusCode >= 500 || failure.statusCode === 408);
      if (result.status === "error" && transient && row.attempts < s.attempts) {
        await requeue(`attempt ${row.attempts}: ${result.error}`, s.backoffMs * 2 ** (row.attempts - 1), "retry");
        return;
      }
      const stored = await storeJobTrace(sql, row, result);
      const failed = result.status === "error";
      const error = result.error ? scrubSecrets(result.error) : null;
      if (!(await finish(failed ? "failed" : "done", error, stored))) return end(); // taken back meanwhile
      emit(job, {
        type: "done",
        status: result.status,
        ...(error ? { error } : {}),
        runId: stored.runId,
        traceId: stored.traceId,
        questionId: row.question_id!,
        sample: stored.sample,
        ...(stored.original ? { originalRunId: stored.original.runId, originalSample: stored.original.sample } : {}),
        ...(stored.verdict ? { verdict: stored.verdict } : {}),
      });
      end();
    } catch (e) {
      const message = scrubSecrets((e as Error).message);
      try {
        await finish("failed", message);
      } catch {
        /* the store is gone: the event says it */
      }
      emit(job, { type: "failed", error: message });
      end();
    } finally {
      await sql.close();
    }
  }
}

/** Runs one job's question through the agent loop (no store writes); the worker decides what to do with the result. */
export async function runJobLoop(
  sql: Sql,
  row: JobRow,
  job: Pick<LiveJob, "controller" | "tokens" | "events" | "listeners">,
  settings: ReturnType<typeof jobSettings> = jobSettings(),
): Promise<LoopResult & Loaded> {
  if (!row.dataset_id || !row.question_id) throw new Error("the job names no dataset question");
  const { question, database } = await loadQuestionFrom(sql, row.dataset_id, row.question_id);
  const directives = await directivesFor(row.variant, question, database, { deps: directiveDeps() });
  const modelName = row.provider === "simulated" ? row.model : `${row.provider}:${row.model}`;
  const run = await targetRun(sql, row, modelName);
  const env = new SqlEnvironment(question, database, { variant: row.variant, directives, run });
  const seed = parseInt(createHash("sha256").update(row.id).digest("hex").slice(0, 8), 16);
  const model =
    row.provider === "simulated"
      ? createSimulatedModel(
          SIMULATED_POLICIES[row.model],
          {
            id: question.id,
            goldSql: question.goldSql ?? "SELECT 1",
            goldTables: question.goldTables ?? [],
            tables: database.tables.map((t) => t.name),
          },
          seed,
          settings.simulatedDelayMs,
        )
      : languageModel(row.provider, row.model);
  const limits = JSON.parse(row.limits ?? "null") as AgentLimits | undefined;
  try {
    const result = await runAgentLoop({
      model,
      modelName,
      env,
      ...(limits ? { limits } : {}),
      signal: job.controller.signal,
      maxRetries: settings.providerRetries,
      telemetry: {
        metadata: {
          ...(run.name ? { "metron.run.name": run.name } : {}),
          ...(run.system ? { "metron.run.system": run.system } : {}),
          "metron.run.benchmark": row.dataset_id,
          "metron.sample": row.sample ?? 0,
        },
      },
      onStep: (step) => {
        const u = step.usage as { input_tokens?: number; output_tokens?: number } | undefined;
        if (u) job.tokens += (u.input_tokens ?? 0) + (u.output_tokens ?? 0);
        emit(job as LiveJob, { type: "step", step: step as unknown as Record<string, unknown> });
      },
    });
    return { ...result, run, modelName };
  } finally {
    await env.close();
  }
}

interface Loaded {
  run: { name: string; system: string; model: string };
  modelName: string;
}

/**
 * Runs one job's question through a harness profile (lib/agent/harnesses.ts): its trace, joined to the environment's,
 * is what the worker stores. A harness that fails (non-zero exit, wall time, no file) fails its job, not retried: the
 * same harness on the same question fails again. Its partial trace (the environment's) is kept when there is one.
 */
export async function runHarnessJobLoop(
  sql: Sql,
  row: JobRow,
  job: Pick<LiveJob, "controller" | "tokens" | "events" | "listeners">,
): Promise<LoopResult & Loaded> {
  if (!row.dataset_id || !row.question_id || !row.harness) throw new Error("the job names no dataset question");
  const { question } = await loadQuestionFrom(sql, row.dataset_id, row.question_id);
  const profile = harnessProfile(row.harness);
  const modelName = harnessModel(row.harness, profile);
  const run = await targetRun(sql, row, modelName);
  const limits = JSON.parse(row.limits ?? "null") as AgentLimits | null;
  const r = await runHarnessJob(row.harness, profile, {
    jobId: row.id,
    datasetId: row.dataset_id,
    questionId: row.question_id,
    questionText: question.text,
    evidence: question.evidence ?? null,
    variant: row.variant,
    signal: job.controller.signal,
    ...(limits?.wallTimeMs ? { timeoutMs: limits.wallTimeMs } : {}),
  });
  const base = r.trace ?? {
    steps: r.error ? [{ type: "error", content: r.error, error: r.error }] : [],
    outcome: { status: r.status, ...(r.error ? { error: r.error } : {}) },
  };
  const trace: Record<string, unknown> = {
    ...base,
    run: { name: run.name, system: run.system, model: run.model, benchmark: row.dataset_id },
    question: {
      ...((base.question as object | undefined) ?? {}),
      id: question.id,
      db_id: question.dbId,
      text: question.text,
    },
    ...(r.error
      ? { outcome: { ...((base.outcome as object | undefined) ?? {}), status: "error", error: r.error } }
      : {}),
    meta: {
      ...((base.meta as object | undefined) ?? {}),
      harness: { name: row.harness, kind: profile.kind, version: r.version, files: r.files },
    },
  };
  if (r.usage) job.tokens += r.usage.input_tokens + r.usage.output_tokens;
  const failed = r.status === "error" || r.status === "timeout";
  return {
    trace,
    status: r.status === "cancelled" ? "cancelled" : failed ? "error" : r.status,
    ...(r.error ? { error: r.error } : {}),
    final: true,
    usage: r.usage ? { ...r.usage, reasoning_tokens: 0, unreported: 0 } : null,
    run,
    modelName,
  };
}
interface Finished {
  runId: string;
  traceId: string;
  sample: number;
  /** Null when the provider reported no usage. */
  tokens: number | null;
  costUsd: number | null;
  original?: { runId: string; sample: number };
  verdict?: Verdict;
}

/** The run a job's trace goes to: its sweep's run, else the "Reruns" run of its system and model. */
async function targetRun(sql: Sql, row: JobRow, modelName: string) {
  if (row.sweep_id) {
    const r = await sql.get<{ name: string; system: string; model: string }>(
      "SELECT name, system, model FROM runs WHERE id = ?",
      [row.sweep_id],
    );
    if (!r) throw new Error(`the sweep's run ${row.sweep_id} is gone`);
    return r;
  }
  return { name: RERUN_RUN_NAME, system: SYSTEM_OF[row.variant], model: modelName };
}

/** Stores a job's trace (replacing one an earlier attempt of the same job stored), evaluates it, and judges it. */
export async function storeJobTrace(sql: Sql, row: JobRow, result: LoopResult & Loaded): Promise<Finished> {
  const runId = runIdOf(result.run);
  const previous = (
    await sql.all<{ id: string }>(
      `SELECT id FROM traces WHERE ${sql.d.jsonText("meta", "rerun_job")} = ?${row.sweep_id ? " OR (run_id = ? AND question_id = ? AND sample = ?)" : ""}`,
      [row.id, ...(row.sweep_id ? [runId, row.question_id, row.sample] : [])],
    )
  ).map((r) => r.id);
  if (previous.length) await deleteTraces(sql, runId, previous);
  const original = row.trace_id
    ? await sql.get<{ id: string; runId: string; sample: number }>(
        "SELECT id, run_id AS runId, sample FROM traces WHERE id = ?",
        [row.trace_id],
      )
    : undefined;
  const sample =
    row.sample ??
    (
      await sql.get<{ n: number }>(
        "SELECT coalesce(max(sample) + 1, 0) AS n FROM traces WHERE run_id = ? AND question_id = ?",
        [runId, row.question_id],
      )
    )?.n ??
    0;
  const simulated = row.provider === "simulated";
  const trace = {
    ...result.trace,
    sample,
    run: {
      ...(result.trace.run as object),
      // A run of single reruns stays out of every experiment unless one names it; a sweep's run says it is one.
      config: row.sweep_id
        ? { sweep: true, ...(simulated ? { simulated: true } : {}) }
        : { reruns: true, ...(simulated ? { simulated: true } : {}) },
    },
    meta: {
      ...(result.trace.meta as object),
      ...(original ? { rerun_of: { trace_id: original.id, run_id: original.runId, sample: original.sample } } : {}),
      ...(row.sweep_id ? { sweep: row.sweep_id } : {}),
      rerun_job: row.id,
    },
  };
  // Nothing a provider echoed (its key, a bearer token) reaches the store.
  await ingestStream(
    sql,
    (async function* () {
      yield Buffer.from(scrubSecrets(JSON.stringify(trace)) + "\n");
    })(),
    { source: "agent", fileName: `job-${row.id}.jsonl` },
  );
  const stored = await sql.get<{ id: string }>(
    "SELECT id FROM traces WHERE run_id = ? AND question_id = ? AND sample = ?",
    [runId, row.question_id, sample],
  );
  if (!stored) throw new Error("the job's trace was not stored: see the upload's errors");
  await evaluateRun(sql, runId, { traceIds: [stored.id], sandbox: sharedSandbox() });
  // No usage reported (or only by some calls): tokens and cost unknown, never 0.
  const u = result.usage && !result.usage.unreported ? result.usage : null;
  const tokens = u ? u.input_tokens + u.output_tokens : null;
  const costUsd = simulated
    ? 0
    : u
      ? costOf(
          result.modelName,
          { input: u.input_tokens, cached: u.cached_input_tokens, output: u.output_tokens },
          loadPrices(),
        )
      : null;
  return {
    runId,
    traceId: stored.id,
    sample,
    tokens,
    costUsd,
    ...(original ? { original: { runId: original.runId, sample: original.sample } } : {}),
    ...(original ? { verdict: await traceVerdict(sql, original.id, stored.id) } : {}),
  };
}

/** Spent today (UTC) on reruns and sweeps with a real provider, from their stored traces: recorded cost, else priced tokens; null when unpriced. */
export async function spentToday(sql: Sql): Promise<{ usd: number; unpriced: number }> {
  const { d } = sql;
  const r = await sql.get<{ usd: number | null; unpriced: number | null }>(
    `SELECT sum(coalesce(cost_usd, cost_computed_usd)) AS usd, sum(CASE WHEN coalesce(cost_usd, cost_computed_usd) IS NULL THEN 1 ELSE 0 END) AS unpriced
    FROM traces WHERE ${d.jsonText("meta", "rerun_job")} IS NOT NULL AND created_at >= ? AND ${d.jsonText("meta", "agent.model")} NOT LIKE 'sim-%'`,
    [`${new Date().toISOString().slice(0, 10)}T00:00:00Z`],
  );
  return { usd: r?.usd ?? 0, unpriced: r?.unpriced ?? 0 };
}

/** Which budget a sweep has reached, in words; null while it is within all of them. */
export async function budgetReached(
  sql: Sql,
  sweepId: string,
  budget: { maxCostUsd?: number; maxTokens?: number; maxWallMs?: number },
  createdAt: string,
  provider = "simulated",
): Promise<string | null> {
  const spent = (await sql.get<{ tokens: number; cost: number; noTokens: number; noCost: number }>(
    `SELECT coalesce(sum(tokens), 0) AS tokens, coalesce(sum(cost_usd), 0) AS cost,
      sum(CASE WHEN state = 'done' AND tokens IS NULL THEN 1 ELSE 0 END) AS "noTokens",
      sum(CASE WHEN state = 'done' AND cost_usd IS NULL THEN 1 ELSE 0 END) AS "noCost"
    FROM rerun_jobs WHERE sweep_id = ?`,
    [sweepId],
  ))!;
  // A budget the provider's answers cannot measure is not kept silently at 0 (issue 30).
  if (budget.maxTokens !== undefined && Number(spent.noTokens) > 0)
    return `a token budget, but the provider reported no usage for ${Number(spent.noTokens)} finished ${Number(spent.noTokens) === 1 ? "job" : "jobs"}: tokens spent are unknown`;
  if (budget.maxCostUsd !== undefined && provider !== "simulated" && Number(spent.noCost) > 0)
    return `a cost budget, but the cost of ${Number(spent.noCost)} finished ${Number(spent.noCost) === 1 ? "job is" : "jobs are"} unknown (no usage reported, or no price)`;
  if (budget.maxTokens !== undefined && spent.tokens >= budget.maxTokens)
    return `${spent.tokens} tokens of at most ${budget.maxTokens}`;
  if (budget.maxCostUsd !== undefined && spent.cost >= budget.maxCostUsd)
    return `$${spent.cost.toFixed(4)} of at most $${budget.maxCostUsd}`;
  if (budget.maxWallMs !== undefined && now() - Date.parse(createdAt) >= budget.maxWallMs)
    return `wall time of at most ${Math.round(budget.maxWallMs / 1000)} s`;
  // The server's daily cap on spending (METRON_DAILY_BUDGET_USD) holds for sweeps too.
  const daily = process.env.METRON_DAILY_BUDGET_USD ? Number(process.env.METRON_DAILY_BUDGET_USD) : null;
  if (daily !== null && provider !== "simulated") {
    const today = (await spentToday(sql)).usd;
    if (today >= daily)
      return `today's spending of $${today.toFixed(2)} is at the daily budget of $${daily} (METRON_DAILY_BUDGET_USD)`;
  }
  return null;
}

/** Ends a sweep early: its queued jobs are cancelled with the reason; what runs finishes. */
export async function stopSweep(sql: Sql, sweepId: string, by: "budget" | "cancel", reason: string): Promise<void> {
  const at = isoNow();
  await sql.transaction(async (tx) => {
    await tx.run(
      "UPDATE sweeps SET state = ?, stopped_by = ?, finished_at = ? WHERE run_id = ? AND state IN ('running', 'paused')",
      [by === "budget" ? "stopped" : "cancelled", by, at, sweepId],
    );
    await tx.run(
      "UPDATE rerun_jobs SET state = 'cancelled', error = ?, finished_at = ? WHERE sweep_id = ? AND state = 'queued'",
      [reason, at, sweepId],
    );
  });
}

/**
 * Whether the server runs its own job worker: yes unless `METRON_WORKERS=0` (dedicated `metron worker` processes
 * take the jobs; `METRON_JOBS=off` is the older name).
 */
export function serverRunsWorker(env: Record<string, string | undefined> = process.env): boolean {
  if (env.METRON_JOBS === "off") return false;
  const raw = env.METRON_WORKERS;
  if (raw === undefined || raw === "") return true;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`METRON_WORKERS must be a whole number (0: the server runs no job worker), got "${raw}"`);
  return n > 0;
}

/**
 * The server's worker (one per process), started on first use and at server start (instrumentation.ts); null when
 * the server leaves jobs to dedicated workers (`METRON_WORKERS=0`): a queued job then waits for one of them.
 */
export function serverWorker(openStore: StoreOpener): JobWorker | null {
  if (!serverRunsWorker()) return null;
  if (!registry.worker) registry.worker = new JobWorker(openStore);
  registry.worker.kick();
  return registry.worker;
}

/** Stops this process's server worker (tests; a server stops with its process). */
export async function stopServerWorker(): Promise<void> {
  const worker = registry.worker;
  registry.worker = undefined;
  await worker?.stop();
}

/**
 * Agent jobs: one question run through the agent loop or a harness, alone (a rerun) or as part of a sweep, on the
 * durable queue of lib/jobs (claim, lease, reclaim, retry policy, the live event log). This file is what a job *is*:
 * its row, its events, running it (`runJobLoop`, `runHarnessJobLoop`) and, through job-trace.ts, what it stores;
 * budgets.ts says when a sweep must stop. The server runs one worker unless METRON_WORKERS=0.
 */
import { createHash } from "node:crypto";
import type { JobRow } from "./job-row";
import type { Sql } from "@/lib/db/sql";
import { loadQuestionFrom } from "@/lib/environment/database-info";
import { directivesFor } from "@/lib/environment/directives";
import { SqlEnvironment } from "@/lib/environment/tools";
import { agentSandbox } from "@/lib/sandbox/sandbox";
import {
  emit,
  liveJob as liveQueueJob,
  trackJob as trackQueueJob,
  type LiveJob as QueueLiveJob,
  type QueueEvent,
} from "@/lib/jobs/live";
import { jobSettings, type JobSettings } from "@/lib/jobs/settings";
import { JobWorker as QueueWorker, type JobRunner, type StoreOpener } from "@/lib/jobs/worker";
import { scrubSecrets } from "@/lib/config/secrets";
import { budgetReached, stopSweep } from "./budgets";
import { precomputeRunViews, runsWithoutViews } from "@/lib/views/ahead";
import { directiveDeps } from "./directive-models";
import { harnessModel, harnessProfile, runHarnessJob } from "./harnesses";
import { storeJobTrace, targetRun, type Loaded } from "./job-trace";
import { runAgentLoop, type AgentLimits, type LoopResult } from "./loop";
import { languageModel } from "./providers";
import { createSimulatedModel, SIMULATED_POLICIES } from "./simulated";
import type { Verdict } from "./verdict";

export { jobSettings, emit, type StoreOpener };
export { RERUN_RUN_NAME, storeJobTrace } from "./job-trace";
export type { JobRow } from "./job-row";
export { budgetReached, spentToday, stopSweep } from "./budgets";

/** What an agent job says as it runs, beside the queue's own status and failure events. */
export type AgentEvent =
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
    };

export type JobEvent = { id: number } & (QueueEvent | AgentEvent);
/** What this process holds of an agent job: its events, for pages that follow it live. */
export type LiveJob = QueueLiveJob<QueueEvent | AgentEvent>;

export const liveJob = (id: string) => liveQueueJob<QueueEvent | AgentEvent>(id);
export const trackJob = (id: string, sweepId: string | null, questionId: string | null, sample: number | null) =>
  trackQueueJob<QueueEvent | AgentEvent>(id, sweepId, questionId, sample);

/** An agent job's run: the loop's result and the run its trace goes to. */
type AgentOutcome = LoopResult & Loaded;

/** What the queue's worker runs for an agent job. */
export const agentRunner: JobRunner<JobRow, AgentOutcome, AgentEvent> = {
  run: (sql, row, job) => (row.harness ? runHarnessJobLoop(sql, row, job) : runJobLoop(sql, row, job)),
  async complete(sql, row, result) {
    const stored = await storeJobTrace(sql, row, result);
    const error = result.error ? scrubSecrets(result.error) : null;
    return {
      record: stored,
      event: {
        type: "done",
        status: result.status,
        ...(error ? { error } : {}),
        runId: stored.runId,
        traceId: stored.traceId,
        questionId: row.question_id!,
        sample: stored.sample,
        ...(stored.original ? { originalRunId: stored.original.runId, originalSample: stored.original.sample } : {}),
        ...(stored.verdict ? { verdict: stored.verdict } : {}),
      },
    };
  },
  stopReason: (sql, s) =>
    budgetReached(sql, s.runId, JSON.parse(s.budget), s.createdAt, s.provider).then(
      (r) => r && `not run: the sweep's budget was reached (${r})`,
    ),
  stopSweep: (sql, sweepId, reason) => stopSweep(sql, sweepId, "budget", reason),
  // The sweep's run is complete: its views computed ahead of its first view (lib/views/ahead.ts). A view whose write
  // the store refused (computed all the same) leaves the run without it: the worker asks again later.
  async sweepFinished(sql, sweepId) {
    if (process.env.METRON_VIEWS_AHEAD === "0") return true;
    await precomputeRunViews(sql, await runsWithoutViews(sql, [sweepId]));
    return (await runsWithoutViews(sql, [sweepId])).length === 0;
  },
};

/** A worker of agent jobs: every sweep and rerun (the server), or one sweep (`only`, the CLI). */
export class JobWorker extends QueueWorker<JobRow, AgentOutcome, AgentEvent> {
  constructor(openStore: StoreOpener, only?: string, maxJobs?: number) {
    super(openStore, agentRunner, only, maxJobs);
  }
}

/** Runs one job's question through the agent loop (no store writes); the worker decides what to do with the result. */
export async function runJobLoop(
  sql: Sql,
  row: JobRow,
  job: Pick<LiveJob, "controller" | "tokens" | "events" | "listeners">,
  settings: JobSettings = jobSettings(),
): Promise<LoopResult & Loaded> {
  if (!row.dataset_id || !row.question_id) throw new Error("the job names no dataset question");
  const { question, database } = await loadQuestionFrom(sql, row.dataset_id, row.question_id);
  const directives = await directivesFor(row.variant, question, database, { deps: directiveDeps() });
  const modelName = row.provider === "simulated" ? row.model : `${row.provider}:${row.model}`;
  const run = await targetRun(sql, row, modelName);
  const env = new SqlEnvironment(question, database, {
    variant: row.variant,
    directives,
    run,
    sandbox: agentSandbox(),
  });
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
interface Registry {
  worker?: JobWorker;
}
const g = globalThis as unknown as { metronJobs?: Registry };
const registry: Registry = (g.metronJobs ??= {});

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

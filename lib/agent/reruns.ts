/**
 * Reruns: one question of a stored trace, run again server-side through the agent loop with another provider,
 * model, variant or limits. Jobs are queued under a concurrency limit (METRON_RERUN_CONCURRENCY, default 2); each
 * keeps its events (status, steps, the end) so an event stream can reconnect and replay from any point. The
 * finished trace — partial if it failed — goes through the normal ingest into the "Reruns" run of its system and
 * model, with `meta.rerun_of` naming the trace it came from.
 *
 * Spending limits (docs/security.md): a cap on one client's queued and running jobs, a server-wide queue cap,
 * server-side maxima for steps, wall time and output tokens (a request can lower them, never raise them), and a
 * daily cost cap; past one, RerunLimitError (HTTP 429) names it. Jobs are recorded in `rerun_jobs`: one that was
 * queued or running when the server stopped is marked lost at the next start. Events are scrubbed of secrets, and
 * a finished job's events are released after METRON_RERUN_RETENTION_MS.
 */
import type Database from "better-sqlite3";
import { createHash, randomUUID } from "node:crypto";
import { loadQuestion } from "@/lib/environment/database-info";
import { directivesFor, SYSTEM_OF, type Variant } from "@/lib/environment/directives";
import { SqlEnvironment } from "@/lib/environment/tools";
import { ingestStream } from "@/lib/ingest/ingest";
import { runIdOf } from "@/lib/trace/hash";
import { positiveNumber } from "@/lib/config/env";
import { loadPrices } from "@/lib/ingest/prices-file";
import { priceOf } from "@/lib/metrics/prices";
import { defaultLimits, runAgentLoop, type AgentLimits } from "./loop";
import { scrubSecrets, scrubValue } from "./scrub";
import { directiveDeps } from "./directive-models";
import { languageModel, listProviders, type ProviderId } from "./providers";
import { createSimulatedModel, SIMULATED_POLICIES } from "./simulated";

export const RERUN_RUN_NAME = "Reruns";

export interface RerunRequest {
  traceId: string;
  /** Who asked (the access token's name, else the client's address): the unit of the per-client cap. */
  client?: string;
  provider: ProviderId;
  model: string;
  variant: Variant;
  limits: AgentLimits;
}

export type RerunEvent = { id: number } & (
  | { type: "status"; status: "queued" | "running"; position?: number }
  | { type: "step"; step: Record<string, unknown> }
  | {
      type: "done";
      status: string;
      error?: string;
      runId: string;
      traceId: string;
      questionId: string;
      sample: number;
      originalRunId: string;
      originalSample: number;
    }
  | { type: "failed"; error: string }
);

type EventBody = RerunEvent extends infer E ? (E extends { id: number } ? Omit<E, "id"> : never) : never;

export interface RerunJob {
  id: string;
  request: RerunRequest;
  state: "queued" | "running" | "finished";
  events: RerunEvent[];
  listeners: Set<(e: RerunEvent) => void>;
  controller: AbortController;
  finishedAt?: number;
}

interface Registry {
  jobs: Map<string, RerunJob>;
  queue: RerunJob[];
  running: number;
  recovered?: boolean;
}
const g = globalThis as unknown as { metronReruns?: Registry };
const registry: Registry = (g.metronReruns ??= {
  jobs: new Map<string, RerunJob>(),
  queue: [] as RerunJob[],
  running: 0,
});

function concurrency(): number {
  const n = Number(process.env.METRON_RERUN_CONCURRENCY ?? 2);
  return Number.isInteger(n) && n > 0 ? n : 2;
}

function emit(job: RerunJob, body: EventBody): void {
  const event = { id: job.events.length, ...scrubValue(body) } as RerunEvent;
  job.events.push(event);
  for (const l of job.listeners) l(event);
}

export function getRerun(id: string): RerunJob | undefined {
  return registry.jobs.get(id);
}

export function rerunLimits() {
  return {
    perClient: positiveNumber("METRON_RERUN_MAX_PER_CLIENT", 4),
    queued: positiveNumber("METRON_RERUN_MAX_QUEUED", 32),
    retentionMs: positiveNumber("METRON_RERUN_RETENTION_MS", 3_600_000),
    dailyBudgetUsd: process.env.METRON_DAILY_BUDGET_USD
      ? positiveNumber("METRON_DAILY_BUDGET_USD", 0, { integer: false })
      : null,
  };
}

/** A limit was hit: the route answers 429 with this message, which names the limit. */
export class RerunLimitError extends Error {}

/** Marks the jobs a previous server process left queued or running as lost (once per process). */
function recoverLostJobs(sqlite: Database.Database): void {
  if (registry.recovered) return;
  registry.recovered = true;
  sqlite
    .prepare(
      "UPDATE rerun_jobs SET state = 'lost', error = 'the server stopped before this job finished; start it again', finished_at = strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE state IN ('queued', 'running')",
    )
    .run();
}

/** What the store says of a job this process does not hold (finished and released, or lost in a restart). */
export function getRecordedRerun(
  sqlite: Database.Database,
  id: string,
): { state: string; error: string | null; resultTraceId: string | null } | undefined {
  recoverLostJobs(sqlite);
  return sqlite
    .prepare("SELECT state, error, result_trace_id AS resultTraceId FROM rerun_jobs WHERE id = ?")
    .get(id) as { state: string; error: string | null; resultTraceId: string | null } | undefined;
}

/** Spent today (UTC) on reruns, from their stored traces: recorded cost, else priced tokens; null when unpriced. */
function spentToday(sqlite: Database.Database): { usd: number; unpriced: number } {
  const r = sqlite
    .prepare(
      `SELECT sum(coalesce(cost_usd, cost_computed_usd)) AS usd, sum(CASE WHEN coalesce(cost_usd, cost_computed_usd) IS NULL THEN 1 ELSE 0 END) AS unpriced
    FROM traces WHERE json_extract(meta, '$.rerun_job') IS NOT NULL AND created_at >= strftime('%Y-%m-%dT00:00:00Z', 'now') AND json_extract(meta, '$.agent.model') NOT LIKE 'sim-%'`,
    )
    .get() as { usd: number | null; unpriced: number | null };
  return { usd: r.usd ?? 0, unpriced: r.unpriced ?? 0 };
}

/** Releases the events of jobs finished longer ago than the retention period (their records stay). */
function releaseFinished(retentionMs: number): void {
  const cutoff = Date.now() - retentionMs;
  for (const [id, job] of registry.jobs)
    if (job.state === "finished" && job.finishedAt !== undefined && job.finishedAt < cutoff) registry.jobs.delete(id);
}

/** Checks the request against the limits, the store and the providers; returns the job, queued. */
export function startRerun(openStore: () => Database.Database, request: RerunRequest): RerunJob {
  const provider = listProviders().find((p) => p.id === request.provider);
  if (!provider?.available)
    throw new RerunError(`provider ${request.provider} is not configured: ${provider?.enable ?? "unknown provider"}`);
  if (request.provider === "simulated" && !SIMULATED_POLICIES[request.model])
    throw new RerunError(`the simulated provider has the models ${Object.keys(SIMULATED_POLICIES).join(", ")}`);
  const limits = rerunLimits();
  releaseFinished(limits.retentionMs);
  const client = request.client ?? "local";
  const active = [...registry.jobs.values()].filter((j) => j.state !== "finished");
  if (active.filter((j) => (j.request.client ?? "local") === client).length >= limits.perClient)
    throw new RerunLimitError(
      `${client} already has ${limits.perClient} reruns queued or running (METRON_RERUN_MAX_PER_CLIENT): wait for one to finish`,
    );
  if (registry.queue.length >= limits.queued)
    throw new RerunLimitError(`the server's rerun queue is full (${limits.queued} jobs, METRON_RERUN_MAX_QUEUED)`);
  // The server's maxima: a request can lower them, never raise them.
  const max = defaultLimits();
  const clamped = {
    maxSteps: Math.min(request.limits.maxSteps, max.maxSteps),
    wallTimeMs: Math.min(request.limits.wallTimeMs, max.wallTimeMs),
    maxOutputTokens: Math.min(request.limits.maxOutputTokens, max.maxOutputTokens),
  };
  const sqlite = openStore();
  let id: string;
  try {
    recoverLostJobs(sqlite);
    if (limits.dailyBudgetUsd !== null && request.provider !== "simulated") {
      if (!priceOf(request.model, loadPrices()))
        throw new RerunLimitError(
          `${request.model} has no price, so the daily budget (METRON_DAILY_BUDGET_USD) cannot be kept: add its price to METRON_PRICES`,
        );
      const spent = spentToday(sqlite);
      if (spent.usd >= limits.dailyBudgetUsd)
        throw new RerunLimitError(
          `today's reruns cost $${spent.usd.toFixed(2)}, at the daily budget of $${limits.dailyBudgetUsd} (METRON_DAILY_BUDGET_USD)`,
        );
    }
    id = randomUUID();
    sqlite
      .prepare(
        "INSERT INTO rerun_jobs (id, trace_id, client, provider, model, variant, state) VALUES (?, ?, ?, ?, ?, ?, 'queued')",
      )
      .run(id, request.traceId, client, request.provider, request.model, request.variant);
  } finally {
    sqlite.close();
  }
  const job: RerunJob = {
    id,
    request: { ...request, client, limits: clamped },
    state: "queued",
    events: [],
    listeners: new Set(),
    controller: new AbortController(),
  };
  registry.jobs.set(job.id, job);
  registry.queue.push(job);
  emit(job, { type: "status", status: "queued", position: registry.queue.length });
  pump(openStore);
  return job;
}

export class RerunError extends Error {}

export function cancelRerun(id: string): boolean {
  const job = registry.jobs.get(id);
  if (!job || job.state === "finished") return false;
  if (job.state === "queued") {
    registry.queue.splice(registry.queue.indexOf(job), 1);
    job.state = "finished";
    job.finishedAt = Date.now();
    emit(job, { type: "failed", error: "cancelled before it started" });
  } else job.controller.abort();
  return true;
}

function pump(openStore: () => Database.Database): void {
  while (registry.running < concurrency() && registry.queue.length) {
    const job = registry.queue.shift()!;
    registry.running++;
    job.state = "running";
    emit(job, { type: "status", status: "running" });
    void execute(openStore, job).finally(() => {
      registry.running--;
      job.state = "finished";
      job.finishedAt = Date.now();
      registry.queue.forEach((q, i) => emit(q, { type: "status", status: "queued", position: i + 1 }));
      pump(openStore);
    });
  }
}

async function execute(openStore: () => Database.Database, job: RerunJob): Promise<void> {
  const sqlite = openStore();
  const record = (state: string, error: string | null, resultTraceId: string | null = null) =>
    sqlite
      .prepare(
        "UPDATE rerun_jobs SET state = ?, error = ?, result_trace_id = ?, finished_at = CASE WHEN ? IN ('done', 'failed') THEN strftime('%Y-%m-%dT%H:%M:%fZ','now') END WHERE id = ?",
      )
      .run(state, error, resultTraceId, state, job.id);
  try {
    record("running", null);
    const { request } = job;
    const original = sqlite
      .prepare(
        "SELECT t.id, t.run_id AS runId, t.question_id AS questionId, t.sample, r.dataset_id AS datasetId FROM traces t JOIN runs r ON r.id = t.run_id WHERE t.id = ?",
      )
      .get(request.traceId) as
      { id: string; runId: string; questionId: string; sample: number; datasetId: string | null } | undefined;
    if (!original) throw new Error(`no trace ${request.traceId}`);
    if (!original.datasetId)
      throw new Error("the trace's run is not linked to a dataset: a rerun needs the question's database");
    const { question, database } = loadQuestion(sqlite, original.datasetId, original.questionId);
    const directives = await directivesFor(request.variant, question, database, { deps: directiveDeps() });
    const modelName = request.provider === "simulated" ? request.model : `${request.provider}:${request.model}`;
    const run = { name: RERUN_RUN_NAME, system: SYSTEM_OF[request.variant], model: modelName };
    const env = new SqlEnvironment(question, database, { variant: request.variant, directives, run });
    const seed = parseInt(createHash("sha256").update(job.id).digest("hex").slice(0, 8), 16);
    const model =
      request.provider === "simulated"
        ? createSimulatedModel(
            SIMULATED_POLICIES[request.model],
            {
              id: question.id,
              goldSql: question.goldSql ?? "SELECT 1",
              goldTables: question.goldTables ?? [],
              tables: database.tables.map((t) => t.name),
            },
            seed,
          )
        : languageModel(request.provider, request.model);
    const result = await runAgentLoop({
      model,
      modelName,
      env,
      limits: request.limits,
      signal: job.controller.signal,
      onStep: (step) => emit(job, { type: "step", step: step as unknown as Record<string, unknown> }),
    });
    await env.close();
    const runId = runIdOf(run);
    const sample = (
      sqlite
        .prepare("SELECT count(*) AS n FROM traces WHERE run_id = ? AND question_id = ?")
        .get(runId, question.id) as { n: number }
    ).n;
    const trace = {
      ...result.trace,
      sample,
      // A run of reruns stays out of every experiment unless one names it (config.reruns).
      run: {
        ...(result.trace.run as object),
        config: { reruns: true, ...(request.provider === "simulated" ? { simulated: true } : {}) },
      },
      meta: {
        ...(result.trace.meta as object),
        rerun_of: { trace_id: original.id, run_id: original.runId, sample: original.sample },
        rerun_job: job.id,
      },
    };
    // Nothing a provider echoed (its key, a bearer token) reaches the store.
    await ingestStream(
      sqlite,
      (async function* () {
        yield Buffer.from(scrubSecrets(JSON.stringify(trace)) + "\n");
      })(),
      { source: "agent", fileName: `rerun-${job.id}.jsonl` },
    );
    const stored = sqlite
      .prepare("SELECT id FROM traces WHERE run_id = ? AND question_id = ? AND sample = ?")
      .get(runId, question.id, sample) as { id: string };
    emit(job, {
      type: "done",
      status: result.status,
      ...(result.error ? { error: result.error } : {}),
      runId,
      traceId: stored.id,
      questionId: question.id,
      sample,
      originalRunId: original.runId,
      originalSample: original.sample,
    });
    record("done", result.error ? scrubSecrets(result.error) : null, stored.id);
  } catch (e) {
    const message = scrubSecrets((e as Error).message);
    emit(job, { type: "failed", error: message });
    try {
      record("failed", message);
    } catch {
      /* the store is gone: the event says it */
    }
  } finally {
    sqlite.close();
  }
}

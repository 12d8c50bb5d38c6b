/**
 * Reruns: one question of a stored trace, run again server-side through the agent loop with another provider,
 * model, variant or limits. Jobs are queued under a concurrency limit (METRON_RERUN_CONCURRENCY, default 2); each
 * keeps its events (status, steps, the end) so an event stream can reconnect and replay from any point. The
 * finished trace — partial if it failed — goes through the normal ingest into the "Reruns" run of its system and
 * model, with `meta.rerun_of` naming the trace it came from.
 */
import type Database from "better-sqlite3";
import { createHash, randomUUID } from "node:crypto";
import { loadQuestion } from "@/lib/environment/database-info";
import { directivesFor, SYSTEM_OF, type Variant } from "@/lib/environment/directives";
import { SqlEnvironment } from "@/lib/environment/tools";
import { ingestStream } from "@/lib/ingest/ingest";
import { runIdOf } from "@/lib/trace/hash";
import { runAgentLoop, type AgentLimits } from "./loop";
import { directiveDeps } from "./directive-models";
import { languageModel, listProviders, type ProviderId } from "./providers";
import { createSimulatedModel, SIMULATED_POLICIES } from "./simulated";

export const RERUN_RUN_NAME = "Reruns";

export interface RerunRequest {
  traceId: string;
  provider: ProviderId;
  model: string;
  variant: Variant;
  limits: AgentLimits;
}

export type RerunEvent = { id: number } & (
  | { type: "status"; status: "queued" | "running"; position?: number }
  | { type: "step"; step: Record<string, unknown> }
  | { type: "done"; status: string; error?: string; runId: string; traceId: string; questionId: string; sample: number; originalRunId: string; originalSample: number }
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
}

interface Registry { jobs: Map<string, RerunJob>; queue: RerunJob[]; running: number }
const g = globalThis as unknown as { metronReruns?: Registry };
const registry: Registry = (g.metronReruns ??= { jobs: new Map<string, RerunJob>(), queue: [] as RerunJob[], running: 0 });

function concurrency(): number {
  const n = Number(process.env.METRON_RERUN_CONCURRENCY ?? 2);
  return Number.isInteger(n) && n > 0 ? n : 2;
}

function emit(job: RerunJob, body: EventBody): void {
  const event = { id: job.events.length, ...body } as RerunEvent;
  job.events.push(event);
  for (const l of job.listeners) l(event);
}

export function getRerun(id: string): RerunJob | undefined {
  return registry.jobs.get(id);
}

/** Checks the request against the store and the providers; returns the job, queued. */
export function startRerun(openStore: () => Database.Database, request: RerunRequest): RerunJob {
  const provider = listProviders().find((p) => p.id === request.provider);
  if (!provider?.available) throw new RerunError(`provider ${request.provider} is not configured: ${provider?.enable ?? "unknown provider"}`);
  if (request.provider === "simulated" && !SIMULATED_POLICIES[request.model]) throw new RerunError(`the simulated provider has the models ${Object.keys(SIMULATED_POLICIES).join(", ")}`);
  const job: RerunJob = { id: randomUUID(), request, state: "queued", events: [], listeners: new Set(), controller: new AbortController() };
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
      registry.queue.forEach((q, i) => emit(q, { type: "status", status: "queued", position: i + 1 }));
      pump(openStore);
    });
  }
}

async function execute(openStore: () => Database.Database, job: RerunJob): Promise<void> {
  const sqlite = openStore();
  try {
    const { request } = job;
    const original = sqlite.prepare("SELECT t.id, t.run_id AS runId, t.question_id AS questionId, t.sample, r.dataset_id AS datasetId FROM traces t JOIN runs r ON r.id = t.run_id WHERE t.id = ?").get(request.traceId) as
      { id: string; runId: string; questionId: string; sample: number; datasetId: string | null } | undefined;
    if (!original) throw new Error(`no trace ${request.traceId}`);
    if (!original.datasetId) throw new Error("the trace's run is not linked to a dataset: a rerun needs the question's database");
    const { question, database } = loadQuestion(sqlite, original.datasetId, original.questionId);
    const directives = await directivesFor(request.variant, question, database, { deps: directiveDeps() });
    const modelName = request.provider === "simulated" ? request.model : `${request.provider}:${request.model}`;
    const run = { name: RERUN_RUN_NAME, system: SYSTEM_OF[request.variant], model: modelName };
    const env = new SqlEnvironment(question, database, { variant: request.variant, directives, run });
    const seed = parseInt(createHash("sha256").update(job.id).digest("hex").slice(0, 8), 16);
    const model = request.provider === "simulated"
      ? createSimulatedModel(SIMULATED_POLICIES[request.model], { id: question.id, goldSql: question.goldSql ?? "SELECT 1", goldTables: question.goldTables ?? [], tables: database.tables.map((t) => t.name) }, seed)
      : languageModel(request.provider, request.model);
    const result = await runAgentLoop({ model, modelName, env, limits: request.limits, signal: job.controller.signal, onStep: (step) => emit(job, { type: "step", step: step as unknown as Record<string, unknown> }) });
    await env.close();
    const runId = runIdOf(run);
    const sample = (sqlite.prepare("SELECT count(*) AS n FROM traces WHERE run_id = ? AND question_id = ?").get(runId, question.id) as { n: number }).n;
    const trace = {
      ...result.trace,
      sample,
      run: { ...(result.trace.run as object), ...(request.provider === "simulated" ? { config: { simulated: true } } : {}) },
      meta: { ...(result.trace.meta as object), rerun_of: { trace_id: original.id, run_id: original.runId, sample: original.sample }, rerun_job: job.id },
    };
    await ingestStream(sqlite, (async function* () { yield Buffer.from(JSON.stringify(trace) + "\n"); })(), { source: "agent", fileName: `rerun-${job.id}.jsonl` });
    const stored = sqlite.prepare("SELECT id FROM traces WHERE run_id = ? AND question_id = ? AND sample = ?").get(runId, question.id, sample) as { id: string };
    emit(job, { type: "done", status: result.status, ...(result.error ? { error: result.error } : {}), runId, traceId: stored.id, questionId: question.id, sample, originalRunId: original.runId, originalSample: original.sample });
  } catch (e) {
    emit(job, { type: "failed", error: (e as Error).message });
  } finally {
    sqlite.close();
  }
}

/**
 * Reruns: one question of a stored trace, run again server-side through the agent loop with another provider,
 * model, variant or limits — by default the original's own (rerunDefaults). A rerun is a durable job
 * (lib/jobs/queue.ts, run by lib/agent/jobs.ts): it survives a restart, is evaluated as soon as it ends, and is judged against the trace
 * it came from (fixed, still wrong, regressed, still right). Its trace goes into the "Reruns" run of its system
 * and model with `meta.rerun_of` naming the original; that run stays out of every experiment unless one names it.
 *
 * Spending limits (docs/security.md): a cap on one client's queued and running reruns, a server-wide queue cap,
 * server-side maxima for steps, wall time and output tokens (a request can lower them, never raise them), and a
 * daily cost cap; past one, RerunLimitError (HTTP 429) names it. Events are scrubbed of secrets, and a finished
 * job's events are released after METRON_RERUN_RETENTION_MS.
 */
import { randomUUID } from "node:crypto";
import { SYSTEM_OF, type Variant, variants } from "@/lib/environment/directives";
import { positiveNumber } from "@/lib/config/env";
import { loadPrices } from "@/lib/ingest/prices-file";
import { priceOf } from "@/lib/metrics/prices";
import { defaultLimits, type AgentLimits } from "./loop";
import {
  emit,
  liveJob,
  serverWorker,
  spentToday,
  trackJob,
  type JobEvent,
  type LiveJob,
  RERUN_RUN_NAME,
  type StoreOpener,
} from "./jobs";
import type { Sql } from "@/lib/db/sql";
import { count, countN, one, qb, raw, write } from "@/lib/db/typed";
import { listProviders, type ProviderId, type ProviderInfo } from "./providers";
import { SIMULATED_POLICIES } from "./simulated";

export { RERUN_RUN_NAME };
export type RerunEvent = JobEvent;
export type RerunJob = LiveJob;

export interface RerunRequest {
  traceId: string;
  /** Who asked (the access token's name, else the client's address): the unit of the per-client cap. */
  client?: string;
  provider: ProviderId;
  model: string;
  variant: Variant;
  limits: AgentLimits;
}

export function getRerun(id: string): RerunJob | undefined {
  return liveJob(id);
}

export function rerunLimits() {
  return {
    perClient: positiveNumber("METRON_RERUN_MAX_PER_CLIENT", 4),
    queued: positiveNumber("METRON_RERUN_MAX_QUEUED", 32),
    dailyBudgetUsd: process.env.METRON_DAILY_BUDGET_USD
      ? positiveNumber("METRON_DAILY_BUDGET_USD", 0, { integer: false })
      : null,
  };
}

/** A limit was hit: the route answers 429 with this message, which names the limit. */
export class RerunLimitError extends Error {}

/** What the store says of a job this process does not hold (finished and released, or run by another process). */
export async function getRecordedRerun(
  sql: Sql,
  id: string,
): Promise<{ state: string; error: string | null; resultTraceId: string | null } | undefined> {
  return one(
    sql,
    qb(sql).selectFrom("jobs").select(["state", "error", "result_trace_id as resultTraceId"]).where("id", "=", id),
  );
}

/** Checks the request against the limits, the store and the providers; returns the job, queued in the store. */
export async function startRerun(openStore: StoreOpener, request: RerunRequest): Promise<RerunJob> {
  const provider = listProviders().find((p) => p.id === request.provider);
  if (!provider?.available)
    throw new RerunError(`provider ${request.provider} is not configured: ${provider?.enable ?? "unknown provider"}`);
  if (request.provider === "simulated" && !SIMULATED_POLICIES[request.model])
    throw new RerunError(`the simulated provider has the models ${Object.keys(SIMULATED_POLICIES).join(", ")}`);
  const limits = rerunLimits();
  const client = request.client ?? "local";
  // The server's maxima: a request can lower them, never raise them.
  const max = defaultLimits();
  const clamped = {
    maxSteps: Math.min(request.limits.maxSteps, max.maxSteps),
    wallTimeMs: Math.min(request.limits.wallTimeMs, max.wallTimeMs),
    maxOutputTokens: Math.min(request.limits.maxOutputTokens, max.maxOutputTokens),
  };
  const sql = await openStore();
  // Never wait synchronously for the lock (it would stop the server while its own upload writes): the transaction
  // below awaits it.
  sql.connection?.pragma("busy_timeout = 0");
  let id = "";
  let position = 0;
  // The caps are checked and the job queued in one transaction, so that requests arriving together cannot all pass.
  try {
    await sql.transaction(async (tx) => {
      if (tx.dialect === "postgres") await one(tx, raw`SELECT pg_advisory_xact_lock(hashtext('metron-reruns'))`);
      const reruns = qb(tx).selectFrom("jobs").select(countN).where("sweep_id", "is", null);
      const mine = reruns.where("state", "in", ["queued", "running"]).where("client", "=", client);
      if ((await count(tx, mine)) >= limits.perClient)
        throw new RerunLimitError(
          `${client} already has ${limits.perClient} reruns queued or running (METRON_RERUN_MAX_PER_CLIENT): wait for one to finish`,
        );
      position = (await count(tx, reruns.where("state", "=", "queued"))) + 1;
      if (position > limits.queued)
        throw new RerunLimitError(`the server's rerun queue is full (${limits.queued} jobs, METRON_RERUN_MAX_QUEUED)`);
      if (limits.dailyBudgetUsd !== null && request.provider !== "simulated") {
        if (!priceOf(request.model, loadPrices()))
          throw new RerunLimitError(
            `${request.model} has no price, so the daily budget (METRON_DAILY_BUDGET_USD) cannot be kept: add its price to METRON_PRICES`,
          );
        const spent = await spentToday(tx);
        if (spent.usd >= limits.dailyBudgetUsd)
          throw new RerunLimitError(
            `today's reruns cost $${spent.usd.toFixed(2)}, at the daily budget of $${limits.dailyBudgetUsd} (METRON_DAILY_BUDGET_USD)`,
          );
      }
      const original = await one(
        tx,
        qb(tx)
          .selectFrom("traces as t")
          .innerJoin("runs as r", "r.id", "t.run_id")
          .select(["t.question_id as questionId", "r.dataset_id as datasetId"])
          .where("t.id", "=", request.traceId),
      );
      if (!original) throw new RerunError(`no trace ${request.traceId}`);
      if (!original.datasetId)
        throw new RerunError("the trace's run is not linked to a dataset: a rerun needs the question's database");
      id = randomUUID();
      await write(
        tx,
        qb(tx)
          .insertInto("jobs")
          .values({
            id,
            trace_id: request.traceId,
            dataset_id: original.datasetId,
            question_id: original.questionId,
            client,
            provider: request.provider,
            model: request.model,
            variant: request.variant,
            limits: JSON.stringify(clamped),
            state: "queued",
          }),
      );
      const job = trackJob(id, null, original.questionId, null);
      emit(job, { type: "status", status: "queued", position });
    });
  } catch (e) {
    if ((e as { code?: string }).code === "SQLITE_BUSY")
      throw new RerunLimitError("the store is busy writing (an upload or an evaluation): try again in a moment");
    throw e;
  } finally {
    await sql.close();
  }
  serverWorker(openStore);
  return liveJob(id)!;
}

export class RerunError extends Error {}

/** Cancels a rerun: a queued one is dropped, a running one here stops and keeps its partial trace. */
export async function cancelRerun(openStore: StoreOpener, id: string): Promise<boolean> {
  const job = liveJob(id);
  if (job?.state === "running") {
    job.abortedFor = "cancel";
    job.controller.abort();
    return true;
  }
  const sql = await openStore();
  try {
    const changed = (
      await write(
        sql,
        qb(sql)
          .updateTable("jobs")
          .set({ state: "cancelled", error: "cancelled before it started", finished_at: new Date().toISOString() })
          .where("id", "=", id)
          .where("state", "=", "queued"),
      )
    ).changes;
    if (changed && job) {
      job.state = "finished";
      job.finishedAt = Date.now();
      emit(job, { type: "failed", error: "cancelled before it started" });
    }
    return changed > 0;
  } finally {
    await sql.close();
  }
}

/** What a rerun of a trace starts from: the original's provider, model, variant and the server's limits. */
export interface RerunDefaults {
  provider: ProviderId;
  model: string;
  variant: Variant;
  limits: AgentLimits;
  /** Set when the original's model cannot run here: what it was, and why the proposal differs. */
  unavailable?: string;
}

const VARIANT_OF: Record<string, Variant> = Object.fromEntries(variants.map((v) => [SYSTEM_OF[v], v]));

export function rerunDefaults(
  original: { system: string; model: string },
  providers: ProviderInfo[] = listProviders(),
): RerunDefaults {
  const variant = VARIANT_OF[original.system] ?? "none";
  const limits = defaultLimits();
  const available = providers.filter((p) => p.available);
  // "openai:gpt-5" (a rerun's own naming), else a model a configured provider lists, else the simulated ones.
  const [prefix, ...rest] = original.model.split(":");
  const named = rest.length ? available.find((p) => p.id === prefix) : undefined;
  if (named) return { provider: named.id, model: rest.join(":"), variant, limits };
  const listing = available.find((p) => p.models.includes(original.model));
  if (listing) return { provider: listing.id, model: original.model, variant, limits };
  const fallback = available.find((p) => p.id !== "simulated") ?? available[0];
  return {
    provider: fallback.id,
    model: fallback.models[0],
    variant,
    limits,
    unavailable: `the original's model ${original.model} is not available on this server (${
      rest.length ? `provider ${prefix} is not configured` : "no configured provider lists it"
    }); proposed ${fallback.id === "simulated" ? "the simulated" : fallback.label} ${fallback.models[0]} instead`,
  };
}

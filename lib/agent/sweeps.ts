/**
 * Sweeps: a directive variant and a model run over a selection of a dataset's questions — the failing ones of a
 * run, a list of ids, or all — K samples each, into a new run of the dataset whose configuration records the
 * sweep. Its jobs are durable (lib/jobs/queue.ts): a restart resumes the sweep, a budget (tokens, USD, wall time)
 * stops it before the job that would pass it starts, and it can be paused, resumed and cancelled from the
 * dashboard or the CLI. Outcomes are judged against the source run as they arrive.
 */
import { randomUUID } from "node:crypto";
import { SYSTEM_OF, type Variant } from "@/lib/environment/directives";
import { loadPrices } from "@/lib/ingest/prices-file";
import { priceOf } from "@/lib/metrics/prices";
import { runIdOf } from "@/lib/trace/hash";
import type { Sql } from "@/lib/db/sql";
import type { Tables } from "@/lib/db/typed";
import { count, countN, insertRows, many, one, qb, write } from "@/lib/db/typed";
import type { Insertable } from "kysely";
import {
  harnessBin,
  harnessInstalled,
  harnessModel,
  harnessProfile,
  listHarnesses,
  type HarnessProfile,
} from "./harnesses";
import { budgetReached, JobWorker, serverWorker, stopSweep, type StoreOpener } from "./jobs";
import { defaultLimits, type AgentLimits } from "./loop";
import { listProviders, type ProviderId } from "./providers";
import { rerunDefaults } from "./reruns";
import { SIMULATED_POLICIES } from "./simulated";

export { SweepError } from "./sweep-selection";
export type { Selection } from "./sweep-selection";
import { failingQuestions, selectQuestions, SweepError, type Selection } from "./sweep-selection";

export { sweepStatus, type SweepStatus } from "./sweep-status";
export type { Budget } from "./budgets";
import type { Budget } from "./budgets";

export interface SweepRequest {
  dataset: string;
  /** The run the sweep is compared with (and whose failing questions it may take). */
  sourceRunId?: string;
  selection: Selection;
  provider: ProviderId;
  model: string;
  /**
   * A harness profile's name (lib/agent/harnesses.ts): each question runs through that harness instead of Metron's
   * own loop; `provider` and `model` are then the profile's (the request's are ignored).
   */
  harness?: string;
  variant: Variant;
  limits?: Partial<AgentLimits>;
  samples?: number;
  concurrency?: number;
  budget?: Budget;
  name?: string;
  createdBy?: string;
}

export function sweepMaxima() {
  const { maxSteps, wallTimeMs, maxOutputTokens } = defaultLimits();
  return {
    maxSteps,
    wallTimeMs,
    maxOutputTokens,
    concurrency: Number(process.env.METRON_SWEEP_MAX_CONCURRENCY ?? 8),
    samples: Number(process.env.METRON_SWEEP_MAX_SAMPLES ?? 20),
    jobs: Number(process.env.METRON_SWEEP_MAX_JOBS ?? 20_000),
  };
}

/** Creates the sweep's run and its jobs (question × sample), queued; returns the run's id. */
export async function createSweep(sql: Sql, request: SweepRequest): Promise<{ runId: string; jobs: number }> {
  let harness: { name: string; kind: string; version: string | null } | null = null;
  if (request.harness) {
    let profile: HarnessProfile;
    try {
      profile = harnessProfile(request.harness);
    } catch (e) {
      throw new SweepError((e as Error).message);
    }
    const installed = harnessInstalled(profile);
    if (!installed.installed)
      throw new SweepError(`harness "${request.harness}": ${harnessBin(profile)} is not installed (not on PATH)`);
    harness = { name: request.harness, kind: profile.kind, version: installed.version };
    request = { ...request, provider: "harness" as ProviderId, model: harnessModel(request.harness, profile) };
  }
  const provider = listProviders().find((p) => p.id === request.provider);
  if (!harness && !provider?.available)
    throw new SweepError(`provider ${request.provider} is not configured: ${provider?.enable ?? "unknown provider"}`);
  if (request.provider === "simulated" && !SIMULATED_POLICIES[request.model])
    throw new SweepError(`the simulated provider has the models ${Object.keys(SIMULATED_POLICIES).join(", ")}`);
  const dataset = await one(
    sql,
    qb(sql)
      .selectFrom("datasets")
      .select(["id", "name"])
      .where((eb) => eb.or([eb("id", "=", request.dataset), eb("name", "=", request.dataset)])),
  );
  if (!dataset) throw new SweepError(`no dataset "${request.dataset}"`);
  const max = sweepMaxima();
  const samples = request.samples ?? 1;
  const concurrency = request.concurrency ?? 2;
  if (!Number.isInteger(samples) || samples < 1 || samples > max.samples)
    throw new SweepError(`samples must be an integer from 1 to ${max.samples}`);
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > max.concurrency)
    throw new SweepError(`concurrency must be an integer from 1 to ${max.concurrency} (METRON_SWEEP_MAX_CONCURRENCY)`);
  const budget = request.budget ?? {};
  for (const [k, v] of Object.entries(budget))
    if (v !== undefined && !(typeof v === "number" && v > 0)) throw new SweepError(`budget ${k} must be a number > 0`);
  if (budget.maxCostUsd !== undefined && request.provider !== "simulated" && !priceOf(request.model, loadPrices()))
    throw new SweepError(
      `${request.model} has no price, so a budget in USD cannot be kept: set a token budget, or add its price to METRON_PRICES`,
    );
  const limits: AgentLimits = {
    maxSteps: Math.min(request.limits?.maxSteps ?? max.maxSteps, max.maxSteps),
    wallTimeMs: Math.min(request.limits?.wallTimeMs ?? max.wallTimeMs, max.wallTimeMs),
    maxOutputTokens: Math.min(request.limits?.maxOutputTokens ?? max.maxOutputTokens, max.maxOutputTokens),
  };
  const source = request.sourceRunId
    ? await one(
        sql,
        qb(sql)
          .selectFrom("runs")
          .select(["id", "name", "dataset_id as datasetId"])
          .where("id", "=", request.sourceRunId),
      )
    : undefined;
  if (request.sourceRunId && !source) throw new SweepError(`no run ${request.sourceRunId}`);
  if (source && source.datasetId !== dataset.id)
    throw new SweepError(`run ${source.name} is not a run of dataset ${dataset.name}`);
  if (request.selection.kind === "failing" && !source) throw new SweepError("failing questions need a source run");
  const questions = await selectQuestions(sql, dataset.id, request.selection);
  if (!questions.length) throw new SweepError("the selection has no questions");
  if (questions.length * samples > max.jobs)
    throw new SweepError(
      `${questions.length} questions × ${samples} samples is over the limit of ${max.jobs} jobs (METRON_SWEEP_MAX_JOBS)`,
    );
  const system = SYSTEM_OF[request.variant];
  const modelName =
    request.provider === "simulated" || harness ? request.model : `${request.provider}:${request.model}`;
  const stamp = `${new Date().toISOString().replace("T", " ").slice(0, 19)} UTC`;
  const taken = async (name: string) =>
    Boolean(
      await one(
        sql,
        qb(sql)
          .selectFrom("runs")
          .select("id")
          .where("id", "=", runIdOf({ name, system, model: modelName })),
      ),
    );
  let name = request.name?.trim();
  if (name) {
    if (await taken(name))
      throw new SweepError(`a run named "${name}" with this system and model exists: choose another name`);
  } else {
    // The default name is stamped to the second: sweeps started in the same second (a grid of variants, a script)
    // are numbered rather than refused.
    const base = `Sweep ${stamp} · ${system} · ${modelName}`;
    name = base;
    for (let n = 2; await taken(name); n++) name = `${base} (${n})`;
  }
  const run = { name, system, model: modelName };
  const runId = runIdOf(run);
  const selection = {
    kind: request.selection.kind,
    count: questions.length,
    ...(request.selection.kind === "ids" || request.selection.kind === "filter" ? { ids: questions } : {}),
    ...(request.selection.kind === "filter" ? { description: request.selection.description } : {}),
  };
  const config = {
    sweep: {
      source_run: source?.id ?? null,
      selection: { kind: selection.kind, count: selection.count },
      provider: request.provider,
      model: request.model,
      ...(harness ? { harness } : {}),
      variant: request.variant,
      limits,
      samples,
      concurrency,
      budget,
    },
    ...(request.provider === "simulated" ? { simulated: true } : {}),
  };
  // The source run's first trace of each question: what each job's outcome is judged against.
  const sourceTraces = new Map<string, string>();
  if (source)
    for (const t of await many(
      sql,
      qb(sql)
        .selectFrom("traces")
        .select(["question_id as q", "id"])
        .where("run_id", "=", source.id)
        .orderBy("sample", "desc"),
    ))
      sourceTraces.set(t.q, t.id);
  // The lock is awaited, not waited for synchronously: an upload may hold it (lib/db/write-lock.ts).
  await sql.transaction(async (tx) => {
    await write(
      tx,
      qb(tx)
        .insertInto("runs")
        .values({
          id: runId,
          name,
          system,
          model: modelName,
          benchmark: dataset.id,
          config: JSON.stringify(config),
          dataset_id: dataset.id,
          description: `Sweep of ${questions.length} questions${source ? ` (${selection.kind === "failing" ? "failing in" : "compared with"} ${source.name})` : ""}, ${samples} sample${samples > 1 ? "s" : ""} each.`,
        }),
    );
    await write(
      tx,
      qb(tx)
        .insertInto("sweeps")
        .values({
          run_id: runId,
          dataset_id: dataset.id,
          source_run_id: source?.id ?? null,
          selection: JSON.stringify(selection),
          provider: request.provider,
          model: request.model,
          harness: harness ? JSON.stringify(harness) : null,
          variant: request.variant,
          limits: JSON.stringify(limits),
          samples,
          concurrency,
          budget: JSON.stringify(budget),
          state: "running",
          created_by: request.createdBy ?? "local",
        }),
    );
    // The jobs in order, many per INSERT (one round trip per batch on PostgreSQL); created_at orders their claims.
    const base = Date.now();
    const rows: Insertable<Tables["jobs"]>[] = [];
    for (const q of questions) {
      const from = sourceTraces.get(q);
      for (let k = 0; k < samples; k++)
        rows.push({
          id: randomUUID(),
          trace_id: from ?? null,
          sweep_id: runId,
          dataset_id: dataset.id,
          question_id: q,
          sample: k,
          client: request.createdBy ?? "local",
          provider: request.provider,
          model: request.model,
          harness: harness?.name ?? null,
          variant: request.variant,
          limits: JSON.stringify(limits),
          created_at: new Date(base + rows.length).toISOString(),
          state: "queued",
        });
    }
    await insertRows(tx, "jobs", rows);
  });
  return { runId, jobs: questions.length * samples };
}

export async function controlSweep(
  sql: Sql,
  runId: string,
  action: "pause" | "resume" | "cancel",
): Promise<{ state: string }> {
  const stateOf = () => one(sql, qb(sql).selectFrom("sweeps").select("state").where("run_id", "=", runId));
  const s = await stateOf();
  if (!s) throw new SweepError(`run ${runId} is not a sweep`);
  if (action === "pause") {
    if (s.state !== "running") throw new SweepError(`the sweep is ${s.state}, not running`);
    await sql.transaction((tx) =>
      write(tx, qb(tx).updateTable("sweeps").set({ state: "paused" }).where("run_id", "=", runId)),
    );
  } else if (action === "resume") {
    if (s.state === "done") throw new SweepError("the sweep is done: there is nothing to resume");
    // A running sweep whose process was killed resumes as it is: its jobs are taken back by the next worker.
    if (s.state === "cancelled") throw new SweepError("the sweep was cancelled: start a new one");
    // A sweep stopped by its budget resumes only with a larger budget (sweep resume --max-…, or the sweep page).
    if (s.state === "stopped") {
      const row = (await one(
        sql,
        qb(sql)
          .selectFrom("sweeps")
          .select(["budget", "created_at as createdAt", "provider"])
          .where("run_id", "=", runId),
      ))!;
      const still = await budgetReached(sql, runId, JSON.parse(row.budget), row.createdAt, row.provider);
      if (still) throw new SweepError(`the budget is still reached (${still}): raise it to resume`);
    }
    await sql.transaction(async (tx) => {
      await write(
        tx,
        qb(tx)
          .updateTable("jobs")
          .set({ state: "queued", error: null, finished_at: null })
          .where("sweep_id", "=", runId)
          .where("state", "=", "cancelled")
          .where("error", "like", "not run:%"),
      );
      await write(
        tx,
        qb(tx)
          .updateTable("sweeps")
          .set({ state: "running", stopped_by: null, finished_at: null })
          .where("run_id", "=", runId),
      );
    });
  } else {
    if (s.state === "done" || s.state === "cancelled") throw new SweepError(`the sweep is already ${s.state}`);
    await stopSweep(sql, runId, "cancel", "not run: the sweep was cancelled");
  }
  return { state: (await stateOf())!.state };
}

/** Raises a stopped sweep's budget before resuming it. */
export async function setSweepBudget(sql: Sql, runId: string, budget: Budget): Promise<void> {
  await sql.transaction((tx) =>
    write(
      tx,
      qb(tx)
        .updateTable("sweeps")
        .set({ budget: JSON.stringify(budget) })
        .where("run_id", "=", runId),
    ),
  );
}

/** The server starts its worker; the CLI works one sweep itself until nothing of it is left to take here. */
export function startSweepWork(openStore: StoreOpener): void {
  serverWorker(openStore);
}

export async function workSweepToEnd(openStore: StoreOpener, runId: string): Promise<void> {
  const worker = new JobWorker(openStore, runId);
  // The worker's timers do not hold a process open (a server's must not); this one does, until the sweep ends.
  const keepAlive = setInterval(() => {}, 60_000);
  try {
    worker.kick();
    await worker.idle();
    await worker.stop();
  } finally {
    clearInterval(keepAlive);
  }
}

/** What the sweep form of a page needs: the dataset's size, the source run's failing questions, providers, defaults. */
export async function sweepFormSetup(
  sql: Sql,
  datasetId: string,
  source?: { id: string; name: string; system: string; model: string },
  filter?: { ids: string[]; description: string },
) {
  const max = sweepMaxima();
  const d = source ? rerunDefaults(source) : rerunDefaults({ system: "Sophrosyne", model: "sim-careful" });
  const failing = source ? (await failingQuestions(sql, source.id)).length : 0;
  const total = await count(sql, qb(sql).selectFrom("questions").select(countN).where("dataset_id", "=", datasetId));
  return {
    datasetId,
    ...(source
      ? {
          source: {
            id: source.id,
            name: source.name,
            failing,
            ...(filter?.ids.length ? { filter } : {}),
          },
        }
      : {}),
    totalQuestions: total ?? 0,
    providers: listProviders().map((p) => ({ id: p.id, label: p.label, available: p.available, models: p.models })),
    // The server's harness profiles, by name (a form chooses among them; it cannot give a command).
    harnesses: listHarnesses().profiles.map((h) => ({
      name: h.name,
      kind: h.kind,
      model: h.model,
      installed: h.installed,
      version: h.version,
    })),
    defaults: {
      provider: d.provider,
      model: d.model,
      // A sweep usually tries a variant the source run did not have.
      variant: d.variant === "none" ? "computed" : d.variant,
      maxSteps: max.maxSteps,
      maxConcurrency: max.concurrency,
    },
  };
}

/**
 * What a finished agent job leaves: its trace stored through the normal ingest path (replacing one an earlier attempt
 * stored), evaluated (EX) and judged against the trace it reran.
 */
import type { Sql } from "@/lib/db/sql";
import { many, one, qb } from "@/lib/db/typed";
import { scrubSecrets } from "@/lib/config/secrets";
import { SYSTEM_OF } from "@/lib/environment/directives";
import { evaluateRun } from "@/lib/eval/evaluate-run";
import { deleteTraces } from "@/lib/ingest/remove";
import { ingestStream } from "@/lib/ingest/ingest";
import { loadPrices } from "@/lib/ingest/prices-file";
import { costOf } from "@/lib/metrics/prices";
import { sharedSandbox } from "@/lib/sandbox/sandbox";
import { runIdOf } from "@/lib/trace/hash";
import type { LoopResult } from "./loop";
import { traceVerdict, type Verdict } from "./verdict";
import type { JobRow } from "./job-row";

export const RERUN_RUN_NAME = "Reruns";

export interface Loaded {
  run: { name: string; system: string; model: string };
  modelName: string;
}

export interface Finished {
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
export async function targetRun(sql: Sql, row: JobRow, modelName: string) {
  if (row.sweep_id) {
    const r = await one(
      sql,
      qb(sql).selectFrom("runs").select(["name", "system", "model"]).where("id", "=", row.sweep_id),
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
    await many(
      sql,
      qb(sql)
        .selectFrom("traces")
        .select("id")
        .where((eb) => {
          const ofJob = eb("rerun_job", "=", row.id);
          // A sweep's job: also the trace that holds its place (question and sample) in the sweep's run.
          return row.sweep_id
            ? eb.or([
                ofJob,
                eb.and([
                  eb("run_id", "=", runId),
                  eb("question_id", "=", row.question_id ?? ""),
                  eb("sample", "=", row.sample ?? -1),
                ]),
              ])
            : ofJob;
        }),
    )
  ).map((r) => r.id);
  if (previous.length) await deleteTraces(sql, runId, previous);
  const original = row.trace_id
    ? await one(
        sql,
        qb(sql).selectFrom("traces").select(["id", "run_id as runId", "sample"]).where("id", "=", row.trace_id),
      )
    : undefined;
  const sample =
    row.sample ??
    (
      await one(
        sql,
        qb(sql)
          .selectFrom("traces")
          .select((eb) => eb.fn.coalesce(eb(eb.fn.max("sample"), "+", 1), eb.lit(0)).as("n"))
          .where("run_id", "=", runId)
          .where("question_id", "=", row.question_id ?? ""),
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
  const stored = await one(
    sql,
    qb(sql)
      .selectFrom("traces")
      .select("id")
      .where("run_id", "=", runId)
      .where("question_id", "=", row.question_id ?? "")
      .where("sample", "=", sample),
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

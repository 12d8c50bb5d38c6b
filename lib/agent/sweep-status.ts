/**
 * What a sweep page and `metron sweep status` show: its jobs by state, tokens and cost (null when not recorded, never
 * 0), the price they are computed with, the pace and time left, outcomes judged against the source run, the last
 * errors, and the jobs running now with the steps this process has seen.
 */
import { many, one, qb } from "@/lib/db/typed";
import { effectiveCorrect } from "@/lib/db/typed-sql";
import type { Sql } from "@/lib/db/sql";
import { loadPrices } from "@/lib/ingest/prices-file";
import { priceOf } from "@/lib/metrics/prices";
import { liveJob } from "./jobs";
import type { Budget } from "./budgets";
import { verdictOf, type VerdictKind } from "./verdict";

export interface SweepStatus {
  runId: string;
  name: string;
  datasetId: string;
  sourceRunId: string | null;
  sourceRunName: string | null;
  provider: string;
  model: string;
  /** The harness profile the sweep runs, with its kind and version when it started; null: Metron's own loop. */
  harness: { name: string; kind: string; version: string | null } | null;
  variant: string;
  samples: number;
  concurrency: number;
  selection: { kind: string; count: number };
  budget: Budget;
  state: string;
  stoppedBy: string | null;
  /** Why a stopped or cancelled sweep left jobs unrun, in words ("not run: …" of its jobs). */
  stopReason: string | null;
  createdAt: string;
  finishedAt: string | null;
  jobs: { total: number; queued: number; running: number; done: number; failed: number; cancelled: number };
  /** Tokens of the finished jobs that reported usage; null when none did (not recorded, never 0). */
  tokens: number | null;
  /** Done jobs whose provider reported no usage. */
  tokensUnreported: number;
  costUsd: number | null;
  /** The price the cost is computed with (USD per million tokens) and its source; null when simulated or unpriced. */
  price: { input: number; output: number; source: string } | null;
  elapsedMs: number;
  /** Estimated time left from the pace so far; null before the first job ends or once nothing is left. */
  etaMs: number | null;
  /** Finished jobs judged against the source run's trace of the same question. */
  outcomes: Record<VerdictKind, number>;
  /** The last error of each failed job (at most 20). */
  errors: { questionId: string; sample: number; error: string | null }[];
  /** Jobs running now, with the steps this process has seen of them. */
  running: {
    jobId: string;
    questionId: string;
    sample: number;
    steps: number;
    /** The last steps this process has seen (a worker in another process shows none). */
    recent: { seq: number; label: string; error: boolean }[];
  }[];
}

function priceFor(provider: string, model: string): SweepStatus["price"] {
  if (provider === "simulated") return null;
  const p = priceOf(`${provider}:${model}`, loadPrices());
  return p ? { input: p.input, output: p.output, source: p.source ?? "METRON_PRICES" } : null;
}

export async function sweepStatus(sql: Sql, runId: string): Promise<SweepStatus | null> {
  const q = qb(sql);
  const s = await one(
    sql,
    q
      .selectFrom("sweeps as s")
      .innerJoin("runs as r", "r.id", "s.run_id")
      .leftJoin("runs as src", "src.id", "s.source_run_id")
      .selectAll("s")
      .select(["r.name", "src.name as sourceName"])
      .where("s.run_id", "=", runId),
  );
  if (!s) return null;
  const jobs = await many(
    sql,
    q
      .selectFrom("jobs")
      .select((eb) => [
        "state",
        eb.fn.countAll<number>().as("n"),
        eb.fn.sum<number | null>("tokens").as("tokens"),
        eb.fn.count<number>("tokens").as("counted"),
        eb.fn.sum<number | null>("cost_usd").as("cost"),
        eb.fn.count<number>("cost_usd").as("priced"),
      ])
      .where("sweep_id", "=", runId)
      .groupBy("state"),
  );
  const count = (state: string) => Number(jobs.find((j) => j.state === state)?.n ?? 0);
  const finished = jobs.filter((j) => j.state === "done" || j.state === "failed");
  // Tokens of the jobs whose provider reported usage; a done job without is counted apart, never as 0 (issue 30).
  const tokensUnreported = jobs
    .filter((j) => j.state === "done")
    .reduce((a, j) => a + Number(j.n) - Number(j.counted), 0);
  // Before any job is done nothing was spent (0); once jobs are done and none reported usage, it is unknown.
  const anyTokens = finished.some((j) => Number(j.counted) > 0) || count("done") === 0;
  const tokens = anyTokens ? finished.reduce((a, j) => a + Number(j.tokens ?? 0), 0) : null;
  const unpriced = finished.some((j) => j.priced < j.n);
  const costUsd = unpriced ? null : finished.reduce((a, j) => a + (j.cost ?? 0), 0);
  const outcomes: Record<VerdictKind, number> = {
    fixed: 0,
    regressed: 0,
    "still right": 0,
    "still wrong": 0,
    unknown: 0,
  };
  const judged = await many(
    sql,
    q
      .selectFrom("jobs as j")
      .select((eb) => {
        const correctOf = (id: "j.trace_id" | "j.result_trace_id") =>
          eb
            .selectFrom("traces as t")
            .select((t) => effectiveCorrect(t, "t.ex_outcome", "t.recorded_correct").as("c"))
            .whereRef("t.id", "=", id);
        return [correctOf("j.trace_id").as("before"), correctOf("j.result_trace_id").as("after")];
      })
      .where("j.sweep_id", "=", runId)
      .where("j.state", "in", ["done", "failed"])
      .where("j.result_trace_id", "is not", null),
  );
  for (const j of judged)
    outcomes[verdictOf(j.before === null ? null : j.before === 1, j.after === null ? null : j.after === 1)]++;
  const errors = await many(
    sql,
    q
      .selectFrom("jobs")
      .select(["question_id as questionId", "sample", "error"])
      // a sweep's jobs are made per question and sample (the columns are nullable for reruns of a trace)
      .$narrowType<{ questionId: string; sample: number }>()
      .where("sweep_id", "=", runId)
      .where("state", "=", "failed")
      .orderBy("finished_at", "desc")
      .limit(20),
  );
  const runningRows = await many(
    sql,
    q
      .selectFrom("jobs")
      .select(["id", "question_id as questionId", "sample"])
      .$narrowType<{ questionId: string; sample: number }>()
      .where("sweep_id", "=", runId)
      .where("state", "=", "running")
      .orderBy("started_at"),
  );
  const running = runningRows.map((r) => {
    const live = liveJob(r.id);
    const steps = (live?.events ?? []).flatMap((e) => (e.type === "step" ? [e.step] : []));
    return {
      jobId: r.id,
      questionId: r.questionId,
      sample: r.sample,
      steps: steps.length,
      recent: steps.slice(-8).map((st) => ({
        seq: Number(st.seq),
        label: String(st.tool ?? st.type),
        error: Boolean(st.error),
      })),
    };
  });
  const stopReason = s.stopped_by
    ? ((
        await one(
          sql,
          q
            .selectFrom("jobs")
            .select("error")
            .where("sweep_id", "=", runId)
            .where("state", "=", "cancelled")
            .where("error", "like", "not run:%")
            .limit(1),
        )
      )?.error?.replace(/^not run: /, "") ?? null)
    : null;
  const createdAt = String(s.created_at);
  const end = s.finished_at ? Date.parse(String(s.finished_at)) : Date.now();
  const elapsedMs = Math.max(0, end - Date.parse(createdAt));
  const total = jobs.reduce((a, j) => a + j.n, 0);
  const doneCount = count("done") + count("failed");
  const left = count("queued") + count("running");
  return {
    runId,
    name: String(s.name),
    datasetId: String(s.dataset_id),
    sourceRunId: (s.source_run_id as string | null) ?? null,
    sourceRunName: (s.sourceName as string | null) ?? null,
    provider: String(s.provider),
    model: String(s.model),
    harness: s.harness ? JSON.parse(String(s.harness)) : null,
    variant: String(s.variant),
    samples: Number(s.samples),
    concurrency: Number(s.concurrency),
    selection: JSON.parse(String(s.selection)),
    budget: JSON.parse(String(s.budget)),
    state: String(s.state),
    stoppedBy: (s.stopped_by as string | null) ?? null,
    stopReason,
    createdAt,
    finishedAt: (s.finished_at as string | null) ?? null,
    jobs: {
      total,
      queued: count("queued"),
      running: count("running"),
      done: count("done"),
      failed: count("failed"),
      cancelled: count("cancelled"),
    },
    tokens,
    tokensUnreported,
    costUsd,
    price: priceFor(String(s.provider), String(s.model)),
    elapsedMs,
    etaMs: doneCount > 0 && left > 0 && s.state === "running" ? Math.round((elapsedMs / doneCount) * left) : null,
    outcomes,
    errors,
    running,
  };
}

/** Pause (nothing new starts; what runs finishes), resume, or cancel (queued jobs dropped, running ones stopped). */

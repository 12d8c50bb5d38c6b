/** What the API's read routes answer, from the store (the same queries and figures as the pages). */
import type { z } from "zod";
import type { Sql } from "@/lib/db/sql";
import { decoded, many, qb } from "@/lib/db/typed";
import { binary } from "@/lib/db/typed";
import { inJsonArray, jsonValue } from "@/lib/db/typed-sql";
import { runs as runsTable, traces as tracesTable } from "@/lib/db/schema";
import { readRunTotals } from "@/lib/db/run-totals";
import { listTracesAfter } from "@/lib/db/queries/traces";
import { getStepDetail, listStepSummaries } from "@/lib/db/queries/steps";
import { listDatasets } from "@/lib/db/queries/datasets";
import { accuracyOf, overExplorationOf, type RunAggregates } from "@/lib/metrics/run-metrics";
import type { TraceListRow } from "@/lib/metrics/trace-row";
import { listTraceScores, summarizeRunScores } from "@/lib/scores/scores";
import { ApiError } from "./define";
import type * as s from "./schemas";

type Run = z.input<typeof s.run>;

export function metricsOf(a: RunAggregates): Run["metrics"] {
  const ex = accuracyOf(a);
  return {
    traces: a.traces,
    questions: a.questions,
    ex: ex ? { share: ex.share, judged: ex.n, source: ex.source } : null,
    over_exploration: overExplorationOf(a),
    failed_with_extra: a.failedWithExtra,
    input_tokens: a.tokensRecorded ? a.inputTokens : null,
    output_tokens: a.tokensRecorded ? a.outputTokens : null,
    cost_usd: a.cost,
    unpriced_traces: a.unpricedTraces,
    gold_errors: a.goldErrors,
    directive_recall: a.directiveRecall,
    directive_flag_rate: a.directiveFlagRate,
  };
}

/** The runs a script asks for, newest first, with their totals (run_totals: never a walk of every trace). */
export async function apiRuns(
  sql: Sql,
  f: { dataset?: string; system?: string; model?: string; tag?: string; archived?: boolean },
): Promise<Run[]> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("runs as r")
      .select((eb) => [
        "r.id",
        "r.name",
        "r.system",
        "r.model",
        "r.dataset_id",
        "r.created_at",
        "r.archived_at",
        "r.tags",
        jsonValue(sql, eb, "r.config", "simulated").as("simulated"),
      ])
      .$if(!f.archived, (w) => w.where("r.archived_at", "is", null))
      .$if(Boolean(f.dataset), (w) => w.where("r.dataset_id", "=", f.dataset!))
      .$if(Boolean(f.system), (w) => w.where("r.system", "=", f.system!))
      .$if(Boolean(f.model), (w) => w.where("r.model", "=", f.model!))
      .orderBy("r.created_at", "desc")
      .orderBy(binary(sql, "r.id")),
  );
  const kept = f.tag ? rows.filter((r) => (JSON.parse(r.tags ?? "[]") as string[]).includes(f.tag!)) : rows;
  const totals = await readRunTotals(
    sql,
    kept.map((r) => r.id),
  );
  return kept.map((r) => ({
    id: r.id,
    name: r.name,
    system: r.system,
    model: r.model,
    dataset_id: r.dataset_id,
    created_at: r.created_at,
    archived_at: r.archived_at,
    simulated: Number(r.simulated ?? 0) === 1,
    metrics: metricsOf(totals.get(r.id)!),
  }));
}

export async function apiRun(sql: Sql, runId: string) {
  const run = await decoded(sql, runsTable, qb(sql).selectFrom("runs").selectAll().where("id", "=", runId));
  if (!run) throw new ApiError(404, `no run ${runId}`, "runId");
  const totals = (await readRunTotals(sql, [runId])).get(runId)!;
  return {
    run: {
      id: run.id,
      name: run.name,
      system: run.system,
      model: run.model,
      dataset_id: run.datasetId,
      created_at: run.createdAt,
      archived_at: run.archivedAt,
      simulated: Boolean((run.config as { simulated?: boolean } | null)?.simulated),
      metrics: metricsOf(totals),
      tags: run.tags ?? [],
      description: run.description,
    },
    scores: await summarizeRunScores(sql, [runId]),
  };
}

export const traceOut = (t: TraceListRow): z.input<typeof s.traceRow> => ({
  id: t.id,
  run_id: t.runId,
  question_id: t.questionId,
  sample: t.sample,
  db_id: t.dbId,
  difficulty: t.difficulty,
  status: t.status,
  recorded_correct: t.recordedCorrect === null ? null : Number(t.recordedCorrect) === 1,
  ex_outcome: t.exOutcome,
  step_count: t.stepCount,
  tool_call_count: t.toolCallCount,
  exploratory_calls: t.exploratoryCalls,
  gold_count: t.goldCount,
  over_exploration: t.overExploration,
  extra_table_count: t.extraTableCount,
  empty_probe_count: t.emptyProbeCount,
  tokens: t.tokens === null ? null : Number(t.tokens),
  labels: t.labels ? [...new Set(t.labels.split(","))].sort() : [],
});

/** A page of a run's traces; the cursor is the last trace id given. */
export async function apiRunTraces(sql: Sql, runId: string, limit: number, cursor?: string) {
  const exists = await many(sql, qb(sql).selectFrom("runs").select("id").where("id", "=", runId));
  if (!exists.length) throw new ApiError(404, `no run ${runId}`, "runId");
  const rows = await listTracesAfter(sql, runId, cursor ?? null, limit + 1);
  const page = rows.slice(0, limit);
  return { traces: page.map(traceOut), next_cursor: rows.length > limit ? page.at(-1)!.id : null };
}

export async function apiTrace(sql: Sql, traceId: string) {
  const t = await decoded(sql, tracesTable, qb(sql).selectFrom("traces").selectAll().where("id", "=", traceId));
  if (!t) throw new ApiError(404, `no trace ${traceId}`, "traceId");
  const labels = await many(
    sql,
    qb(sql).selectFrom("labels").select("label").distinct().where("trace_id", "=", traceId).orderBy("label"),
  );
  const steps = await listStepSummaries(sql, traceId, 0, 100_000);
  return {
    trace: {
      id: t.id,
      run_id: t.runId,
      question_id: t.questionId,
      sample: t.sample,
      db_id: t.dbId,
      difficulty: t.difficulty,
      status: t.status,
      recorded_correct: t.recordedCorrect,
      ex_outcome: t.exOutcome,
      step_count: t.stepCount,
      tool_call_count: t.toolCallCount,
      exploratory_calls: t.exploratoryCalls,
      gold_count: t.goldCount,
      over_exploration: t.overExploration,
      extra_table_count: t.extraTableCount,
      empty_probe_count: t.emptyProbeCount,
      tokens: t.tokensRecorded ? t.inputTokens + t.outputTokens : null,
      labels: labels.map((l) => l.label),
      question_text: t.questionText,
      evidence: t.evidence,
      gold_sql: t.goldSql,
      final_sql: t.finalSql,
      directives: t.directives ?? null,
      meta: t.meta ?? null,
    },
    steps: steps.map((st) => ({
      seq: st.seq,
      type: st.type,
      tool: st.tool,
      tool_role: st.toolRole,
      summary: st.summary,
      tables: st.tables,
      exploratory: st.exploratory,
      error: st.error,
      input_tokens: st.inputTokens,
      output_tokens: st.outputTokens,
      duration_ms: st.durationMs,
    })),
    scores: await listTraceScores(sql, traceId),
  };
}

export async function apiStep(sql: Sql, traceId: string, seq: number) {
  const st = await getStepDetail(sql, traceId, seq);
  if (!st) throw new ApiError(404, `no step ${seq} in trace ${traceId}`, "seq");
  return {
    seq: st.seq,
    type: st.type,
    tool: st.tool,
    args: st.args,
    result: st.result,
    error: st.error,
    role: st.role,
    content: st.content,
    model: st.model,
  };
}

export async function apiDatasets(sql: Sql) {
  return {
    datasets: (await listDatasets(sql)).map((d) => ({
      id: d.id,
      name: d.name,
      format: d.format,
      questions: Number(d.questionCount),
      databases: d.databases,
      runs: d.runs,
    })),
  };
}

export async function apiQuestions(sql: Sql, datasetId: string, limit: number, cursor?: string) {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("questions")
      .select(["question_id", "db_id", "text", "evidence", "gold_sql", "difficulty", "gold_tables"])
      .where("dataset_id", "=", datasetId)
      .$if(cursor !== undefined, (w) => w.where(binary(sql, "question_id"), ">", cursor!))
      .orderBy(binary(sql, "question_id"))
      .limit(limit + 1),
  );
  if (!rows.length && !cursor) {
    const known = await many(sql, qb(sql).selectFrom("datasets").select("id").where("id", "=", datasetId));
    if (!known.length) throw new ApiError(404, `no dataset ${datasetId}`, "datasetId");
  }
  const page = rows.slice(0, limit);
  return {
    questions: page.map((q) => ({ ...q, gold_tables: q.gold_tables ? (JSON.parse(q.gold_tables) as string[]) : null })),
    next_cursor: rows.length > limit ? page.at(-1)!.question_id : null,
  };
}

/** Runs by id that exist, in the order asked. */
export async function knownRuns(sql: Sql, ids: readonly string[]) {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("runs")
      .select(["id", "name", "system", "model"])
      .where((eb) => inJsonArray(sql, eb, "id", ids)),
  );
  return ids.map((id) => rows.find((r) => r.id === id)).filter((r) => r !== undefined);
}

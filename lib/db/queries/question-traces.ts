import { traces } from "@/lib/db/schema";
import type { Sql } from "@/lib/db/sql";
import type { TraceRow } from "@/lib/db/schema";
import type { ExpressionBuilder } from "kysely";
import { binary, decoded, many, qb, type Tables } from "@/lib/db/typed";
import { asInteger, effectiveCorrect, isInteger, jsonText, jsonValue } from "@/lib/db/typed-sql";

/** The trace of one question (and sample) in a run, every column. */
export function getQuestionTrace(
  sql: Sql,
  runId: string,
  questionId: string,
  sample: number,
): Promise<TraceRow | undefined> {
  return decoded(
    sql,
    traces,
    qb(sql)
      .selectFrom("traces")
      .selectAll()
      .where("run_id", "=", runId)
      .where("question_id", "=", questionId)
      .where("sample", "=", sample),
  );
}

export async function listSamples(sql: Sql, runId: string, questionId: string): Promise<number[]> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("traces")
      .select("sample")
      .where("run_id", "=", runId)
      .where("question_id", "=", questionId)
      .orderBy("sample"),
  );
  return rows.map((r) => r.sample);
}

export interface Neighbours {
  prev?: string;
  next?: string;
  prevFailing?: string;
  nextFailing?: string;
  position: number;
  total: number;
}

/** Previous/next question and previous/next failing question in the run's question order. */
export async function getNeighbours(sql: Sql, runId: string, questionId: string): Promise<Neighbours> {
  const q = qb(sql);
  const rows = await many(
    sql,
    q
      .selectFrom("traces as t")
      .select((eb) => [
        "t.question_id as q",
        eb.fn.min(effectiveCorrect(eb, "t.ex_outcome", "t.recorded_correct")).as("correct"),
      ])
      .where("t.run_id", "=", runId)
      .groupBy("t.question_id")
      .orderBy((eb) => isInteger(sql, eb, "t.question_id"), "desc")
      .orderBy((eb) => asInteger(sql, eb, "t.question_id"))
      .orderBy(binary(sql, "t.question_id")),
  );
  const i = rows.findIndex((r) => r.q === questionId);
  const failing = (r: { correct: number | null }) => r.correct === 0;
  const before = rows.slice(0, Math.max(0, i));
  const after = rows.slice(i + 1);
  return {
    prev: before.at(-1)?.q,
    next: after[0]?.q,
    prevFailing: before.filter(failing).at(-1)?.q,
    nextFailing: after.find(failing)?.q,
    position: i + 1,
    total: rows.length,
  };
}

/** The same question in the other runs of the same dataset (or benchmark, when no dataset is linked). */
export async function listOtherRuns(
  sql: Sql,
  runId: string,
  questionId: string,
): Promise<
  {
    id: string;
    name: string;
    system: string;
    model: string;
    exOutcome: string | null;
    recordedCorrect: number | null;
    /** A run of single reruns, a sweep's run, or a run of its own (imported, or promoted reruns). */
    kind: RunKind;
  }[]
> {
  return many(
    sql,
    qb(sql)
      .selectFrom("runs as r")
      .innerJoin("traces as t", "t.run_id", "r.id")
      .innerJoin("runs as me", (j) => j.on("me.id", "=", runId))
      .select((eb) => [
        "r.id",
        "r.name",
        "r.system",
        "r.model",
        eb.fn.min("t.ex_outcome").as("exOutcome"),
        eb.fn.min("t.recorded_correct").as("recordedCorrect"),
        runKind(sql, eb).as("kind"),
      ])
      .whereRef("r.id", "!=", "me.id")
      .where("t.question_id", "=", questionId)
      .where((eb) =>
        eb.or([
          eb.and([eb("me.dataset_id", "is not", null), eb("r.dataset_id", "=", eb.ref("me.dataset_id"))]),
          eb.and([
            eb("me.dataset_id", "is", null),
            eb("me.benchmark", "is not", null),
            eb("r.benchmark", "=", eb.ref("me.benchmark")),
          ]),
        ]),
      )
      .groupBy(["r.id", "r.name", "r.system", "r.model", "r.config"])
      .orderBy(binary(sql, "r.system"))
      .orderBy(binary(sql, "r.model"))
      .orderBy(binary(sql, "r.name")),
  );
}

export type RunKind = "reruns" | "sweep" | "run";

/** What a run (`r`) is, from its config: a run of single reruns (outside every figure), a sweep's run, or a run. */
function runKind(sql: Sql, eb: ExpressionBuilder<Tables & { r: Tables["runs"] }, "r">) {
  return eb
    .case()
    .when(jsonValue(sql, eb, "r.config", "reruns"), "is not", null)
    .then(eb.val<RunKind>("reruns"))
    .when(jsonValue(sql, eb, "r.config", "sweep"), "is not", null)
    .then(eb.val<RunKind>("sweep"))
    .else(eb.val<RunKind>("run"))
    .end();
}

export interface RerunRow {
  traceId: string;
  runId: string;
  runName: string;
  system: string;
  model: string;
  sample: number;
  status: string;
  exOutcome: string | null;
  createdAt: string;
  simulated: boolean;
  /** Where the rerun is now: still in a run of reruns (outside every figure), in a sweep's run, or promoted. */
  kind: RunKind;
}

/** The reruns of a trace (its children, `meta.rerun_of`), newest first. */
export async function listRerunsOf(sql: Sql, traceId: string, limit = 20): Promise<RerunRow[]> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("traces as t")
      .innerJoin("runs as r", "r.id", "t.run_id")
      .select((eb) => [
        "t.id as traceId",
        "r.id as runId",
        "r.name as runName",
        "r.system",
        "r.model",
        "t.sample",
        "t.status",
        "t.ex_outcome as exOutcome",
        "t.created_at as createdAt",
        eb.fn.coalesce(jsonValue(sql, eb, "r.config", "simulated"), eb.lit(0)).as("simulated"),
        runKind(sql, eb).as("kind"),
      ])
      .where((eb) => eb(jsonText(sql, eb, "t.meta", "rerun_of.trace_id"), "=", traceId))
      .orderBy("t.created_at", "desc")
      .limit(limit),
  );
  return rows.map((r) => ({ ...r, simulated: Boolean(Number(r.simulated)) }));
}

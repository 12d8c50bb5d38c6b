import { traces } from "@/lib/db/schema";
import { PLAIN_INTEGER, type Sql } from "@/lib/db/sql";
import type { TraceRow } from "@/lib/db/schema";
import type { ExpressionBuilder } from "kysely";
import { binary, count, decoded, many, one, qb, raw, type Tables } from "@/lib/db/typed";
import { getRunAggregates } from "./runs";
import { asInteger, effectiveCorrect, isInteger, jsonValue } from "@/lib/db/typed-sql";

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

/**
 * Previous/next question and previous/next failing question in the run's question order, and its position. Each is
 * a seek in the question-order index (drizzle/0017_question_order_covering.sql), never a walk of the run: integer ids
 * first (as numbers), then other ids by code point. A question is failing when one of its samples is (its least
 * effective correctness is 0). The position counts the distinct questions before it; the total is the run's
 * question count, memoised with its aggregates.
 */
export async function getNeighbours(sql: Sql, runId: string, questionId: string): Promise<Neighbours> {
  const isInt = new RegExp(PLAIN_INTEGER).test(questionId);
  const n = isInt ? (Number.isSafeInteger(Number(questionId)) ? Number(questionId) : questionId) : null;
  /** The first question of a part of the order (integer ids, or the others), optionally failing only. */
  const first = async (
    part: "int" | "text",
    dir: "asc" | "desc",
    bound: "none" | "before" | "after",
    failing: boolean,
  ) => {
    const row = await one(
      sql,
      qb(sql)
        .selectFrom("traces as t")
        .select("t.question_id as q")
        .where("t.run_id", "=", runId)
        .where((eb) => inPart(sql, eb, part))
        .$if(bound !== "none", (w) =>
          w.where((eb) =>
            part === "int"
              ? eb(asInteger(sql, eb, "t.question_id"), bound === "after" ? ">" : "<", n as number)
              : eb(binary(sql, "t.question_id"), bound === "after" ? ">" : "<", questionId),
          ),
        )
        .$if(failing, (w) => w.where((eb) => eb(effectiveCorrect(eb, "t.ex_outcome", "t.recorded_correct"), "=", 0)))
        .orderBy((eb) => asInteger(sql, eb, "t.question_id"), dir)
        .orderBy(binary(sql, "t.question_id"), dir)
        .limit(1),
    );
    return row?.q;
  };
  const next = (failing: boolean) =>
    isInt
      ? first("int", "asc", "after", failing).then((q) => q ?? first("text", "asc", "none", failing))
      : first("text", "asc", "after", failing);
  const prev = (failing: boolean) =>
    isInt
      ? first("int", "desc", "before", failing)
      : first("text", "desc", "before", failing).then((q) => q ?? first("int", "desc", "none", failing));
  const before = (part: "int" | "text", bounded: boolean) =>
    count(
      sql,
      qb(sql)
        .selectFrom("traces as t")
        .select((eb) => eb.fn.count("t.question_id").distinct().as("n"))
        .where("t.run_id", "=", runId)
        .where((eb) => inPart(sql, eb, part))
        .$if(bounded, (w) =>
          w.where((eb) =>
            part === "int"
              ? eb(asInteger(sql, eb, "t.question_id"), "<", n as number)
              : eb(binary(sql, "t.question_id"), "<", questionId),
          ),
        ),
    );
  const [p, nx, pf, nf, earlier, aggregates] = await Promise.all([
    prev(false),
    next(false),
    prev(true),
    next(true),
    isInt ? before("int", true) : Promise.all([before("int", false), before("text", true)]).then(([a, b]) => a + b),
    getRunAggregates(sql, runId),
  ]);
  return { prev: p, next: nx, prevFailing: pf, nextFailing: nf, position: earlier + 1, total: aggregates.questions };
}

/** Integer ids or the others, as the question-order index tells them apart. */
function inPart(sql: Sql, eb: ExpressionBuilder<Tables & { t: Tables["traces"] }, "t">, part: "int" | "text") {
  const integer = isInteger(sql, eb, "t.question_id");
  // SQLite's index holds the comparison as 0/1; PostgreSQL's as a boolean.
  return sql.dialect === "postgres"
    ? eb(integer, "=", raw<boolean>`${raw.lit(part === "int")}`)
    : eb(integer, "=", raw<boolean>`${raw.lit(part === "int" ? 1 : 0)}`);
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

/** The reruns of a trace (its children, `meta.rerun_of`, kept in the indexed column `rerun_of`), newest first. */
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
      .where("t.rerun_of", "=", traceId)
      .orderBy("t.created_at", "desc")
      .limit(limit),
  );
  return rows.map((r) => ({ ...r, simulated: Boolean(Number(r.simulated)) }));
}

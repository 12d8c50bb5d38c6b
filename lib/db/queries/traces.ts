import type { TraceListRow } from "@/lib/metrics/trace-row";
import type { Sql } from "@/lib/db/sql";
import type { TraceFilters, TraceSortKey } from "@/lib/url/runs";
import type { OrderByItemBuilder, SelectQueryBuilder } from "kysely";
import { binary, many, one, qb, type Tables } from "@/lib/db/typed";
import { asInteger, distinctList, effectiveCorrect, inJsonArray, isInteger } from "@/lib/db/typed-sql";
import { cachedByRun, type CacheMode } from "./run-cache";

export type { TraceListRow } from "@/lib/metrics/trace-row";

type TraceQuery<O> = SelectQueryBuilder<Tables & { t: Tables["traces"] }, "t", O>;
type Dir = "asc" | "desc";

/** Question ids are text, but most benchmarks number them: numeric ids in numeric order, then the others by text. */
function byQuestion<O>(sql: Sql, q: TraceQuery<O>, dir: Dir = "asc"): TraceQuery<O> {
  return q
    .orderBy((eb) => isInteger(sql, eb, "t.question_id"), "desc")
    .orderBy((eb) => asInteger(sql, eb, "t.question_id"), dir)
    .orderBy(binary(sql, "t.question_id"), dir)
    .orderBy("t.sample");
}

const nullsLast = (dir: Dir) => (o: OrderByItemBuilder) => (dir === "asc" ? o.asc() : o.desc()).nullsLast();

/** Each sort key's order, then the question order as the tie-break. */
const ORDER: Record<TraceSortKey, <O>(sql: Sql, q: TraceQuery<O>, dir: Dir) => TraceQuery<O>> = {
  question: (sql, q, d) => byQuestion(sql, q, d),
  db: (sql, q, d) => byQuestion(sql, q.orderBy(binary(sql, "t.db_id"), d)),
  steps: (sql, q, d) => byQuestion(sql, q.orderBy("t.step_count", d)),
  tools: (sql, q, d) => byQuestion(sql, q.orderBy("t.tool_call_count", d)),
  exploratory: (sql, q, d) => byQuestion(sql, q.orderBy("t.exploratory_calls", d)),
  over: (sql, q, d) => byQuestion(sql, q.orderBy("t.over_exploration", nullsLast(d))),
  extra: (sql, q, d) => byQuestion(sql, q.orderBy("t.extra_table_count", nullsLast(d))),
  empty: (sql, q, d) => byQuestion(sql, q.orderBy("t.empty_probe_count", nullsLast(d))),
  tokens: (sql, q, d) =>
    byQuestion(
      sql,
      q.orderBy((eb) => eb("t.input_tokens", "+", eb.ref("t.output_tokens")), d),
    ),
  outcome: (sql, q, d) =>
    byQuestion(
      sql,
      q.orderBy("t.ex_outcome", nullsLast(d)).orderBy("t.recorded_correct", nullsLast(d)).orderBy("t.status", d),
    ),
};

export type TraceListOptions = { sort: TraceSortKey; dir: Dir } & Partial<TraceFilters>;

/** A run's traces that the question table's filters keep. */
function filteredTraces(sql: Sql, runId: string, opts: Partial<TraceFilters>) {
  return qb(sql)
    .selectFrom("traces as t")
    .where("t.run_id", "=", runId)
    .$if(Boolean(opts.failing), (q) =>
      q.where((eb) => eb(effectiveCorrect(eb, "t.ex_outcome", "t.recorded_correct"), "=", 0)),
    )
    .$if(Boolean(opts.extra), (q) => q.where("t.extra_table_count", ">", 0))
    .$if(Boolean(opts.over), (q) => q.where("t.over_exploration", ">", 0))
    .$if(Boolean(opts.db), (q) => q.where("t.db_id", "=", opts.db!))
    .$if(Boolean(opts.difficulty), (q) => q.where("t.difficulty", "=", opts.difficulty!))
    .$if(Boolean(opts.traceIds), (q) => q.where((eb) => inJsonArray(sql, eb, "t.id", opts.traceIds!)))
    .$if(Boolean(opts.label), (q) =>
      q.where(({ exists, selectFrom, lit }) =>
        exists(
          selectFrom("labels as l")
            .select(lit(1).as("one"))
            .whereRef("l.trace_id", "=", "t.id")
            .where("l.label", "=", opts.label!),
        ),
      ),
    );
}

/** The question table's columns of a trace `t`. */
function listedColumns<O>(sql: Sql, q: TraceQuery<O>) {
  return q.select((eb) => [
    "t.id",
    "t.run_id as runId",
    "t.question_id as questionId",
    eb.fn<string | null>("substr", ["t.question_text", eb.lit(1), eb.lit(300)]).as("questionText"),
    "t.sample",
    "t.db_id as dbId",
    "t.difficulty",
    "t.step_count as stepCount",
    "t.tool_call_count as toolCallCount",
    eb
      .case()
      .when("t.tokens_recorded", "=", 1)
      .then(eb("t.input_tokens", "+", eb.ref("t.output_tokens")))
      .end()
      .as("tokens"),
    "t.status",
    "t.recorded_correct as recordedCorrect",
    "t.ex_outcome as exOutcome",
    "t.ex_error as exError",
    "t.exploratory_calls as exploratoryCalls",
    "t.gold_count as goldCount",
    "t.over_exploration as overExploration",
    "t.extra_table_count as extraTableCount",
    "t.empty_probe_count as emptyProbeCount",
    eb
      .selectFrom("labels as l")
      .select((l) => distinctList(sql, l, "l.label").as("labels"))
      .whereRef("l.trace_id", "=", "t.id")
      .as("labels"),
  ]);
}

export async function listTraces(
  sql: Sql,
  runId: string,
  opts: TraceListOptions & { page: number; pageSize: number },
): Promise<{ rows: TraceListRow[]; total: number }> {
  const dir: Dir = opts.dir === "asc" ? "asc" : "desc";
  const filtered = filteredTraces(sql, runId, opts);
  const counted = await one(
    sql,
    filtered.select((eb) => eb.fn.countAll<number>().as("n")),
  );
  const rows = await many(
    sql,
    ORDER[opts.sort](sql, listedColumns(sql, filtered), dir)
      .limit(opts.pageSize)
      .offset((Math.max(1, opts.page) - 1) * opts.pageSize),
  );
  return { rows, total: Number(counted?.n ?? 0) };
}

/** A run's traces after `after` in trace-id order, `limit` of them: the API's pages (by the index on run and id). */
export async function listTracesAfter(sql: Sql, runId: string, after: string | null, limit: number) {
  return many(
    sql,
    listedColumns(
      sql,
      qb(sql)
        .selectFrom("traces as t")
        .where("t.run_id", "=", runId)
        .$if(after !== null, (w) => w.where("t.id", ">", after!)),
    )
      .orderBy("t.id")
      .limit(limit),
  );
}

/**
 * Every row the question table's filters keep, in its order, a batch at a time (the CSV export): the ids in order
 * first (small), then each batch's rows by id, so that a run of 300k traces never sits in memory at once.
 */
export async function* iterateTraces(
  sql: Sql,
  runId: string,
  opts: TraceListOptions,
  batch = 500,
): AsyncGenerator<TraceListRow[]> {
  const dir: Dir = opts.dir === "asc" ? "asc" : "desc";
  const ids = (await many(sql, ORDER[opts.sort](sql, filteredTraces(sql, runId, opts).select("t.id"), dir))).map(
    (r) => r.id,
  );
  for (let i = 0; i < ids.length; i += batch) {
    const part = ids.slice(i, i + batch);
    const rows = await many(
      sql,
      listedColumns(
        sql,
        qb(sql)
          .selectFrom("traces as t")
          .where((eb) => inJsonArray(sql, eb, "t.id", part)),
      ),
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    yield part.map((id) => byId.get(id)).filter((r) => r !== undefined);
  }
}

export async function listTraceFacets(
  sql: Sql,
  runId: string,
  mode?: CacheMode,
): Promise<{ databases: string[]; difficulties: string[] }> {
  const col = async (c: "db_id" | "difficulty") =>
    (
      await many(
        sql,
        qb(sql)
          .selectFrom("traces")
          .select(`${c} as v`)
          .where("run_id", "=", runId)
          .where(c, "is not", null)
          .groupBy(c)
          .orderBy(binary(sql, c)),
      )
    ).map((r) => r.v as string);
  return cachedByRun(
    sql,
    runId,
    "facets",
    async () => ({
      databases: await col("db_id"),
      difficulties: await col("difficulty"),
    }),
    mode,
  );
}

/** Question text, gold SQL and final SQL of a run's traces, by (question, sample): what CSV exports carry in full. */
export async function listTraceTexts(
  sql: Sql,
  runId: string,
  /** Only these questions' traces (a batch of an export); all of the run's without it. */
  questionIds?: readonly string[],
): Promise<Map<string, { questionText: string | null; goldSql: string | null; finalSql: string | null }>> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("traces")
      .select([
        "question_id as q",
        "sample as s",
        "question_text as questionText",
        "gold_sql as goldSql",
        "final_sql as finalSql",
      ])
      .where("run_id", "=", runId)
      .$if(questionIds !== undefined, (w) => w.where((eb) => inJsonArray(sql, eb, "question_id", questionIds ?? []))),
  );
  return new Map(rows.map(({ q, s, ...t }) => [`${q}\u0000${s}`, t]));
}

export async function traceExists(sql: Sql, traceId: string): Promise<boolean> {
  return (await one(sql, qb(sql).selectFrom("traces").select("id").where("id", "=", traceId))) !== undefined;
}

/** Whether any of the runs has a trace of the question (the side-by-side view needs one). */
export async function anyRunHasQuestion(sql: Sql, runIds: string[], questionId: string): Promise<boolean> {
  for (const id of runIds)
    if (
      await one(
        sql,
        qb(sql)
          .selectFrom("traces")
          .select("id")
          .where("run_id", "=", id)
          .where("question_id", "=", questionId)
          .limit(1),
      )
    )
      return true;
  return false;
}

/** A trace's final or gold SQL as recorded (the raw text, before any extraction), for `/api/traces/<id>/text`. */
export async function getTraceSql(
  sql: Sql,
  traceId: string,
  field: "final_sql" | "gold_sql",
): Promise<string | null | undefined> {
  const row = await one(sql, qb(sql).selectFrom("traces").select(`${field} as text`).where("id", "=", traceId));
  return row ? row.text : undefined;
}

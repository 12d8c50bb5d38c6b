/**
 * Tables for pandas and DuckDB (docs/notebooks.md): runs (with their totals), traces (with their per-trace metrics
 * and effective correctness), steps, labels and scores as Parquet files with typed columns — integers, doubles,
 * booleans, timestamps, text — written by hyparquet-writer (pure JavaScript, maintained, Node 20; chosen over
 * parquetjs, whose maintained fork needs Node 24, and over WebAssembly writers that need a bundler step). Rows are read
 * from the store a batch at a time and written as row groups, so a table never sits in memory whole.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { ParquetWriter, fileWriter, schemaFromColumnData, type BasicType } from "hyparquet-writer";
import type { Sql } from "@/lib/db/sql";
import { many, qb } from "@/lib/db/typed";
import { effectiveCorrect, inJsonArray, jsonText, jsonValue } from "@/lib/db/typed-sql";
import { readRunTotals } from "@/lib/db/run-totals";

export const PARQUET_TABLES = ["runs", "traces", "steps", "labels", "scores"] as const;
export type ParquetTable = (typeof PARQUET_TABLES)[number];

type Row = Record<string, unknown>;
interface Column {
  name: string;
  type: BasicType;
  /** The row's value in this column (null where unknown). */
  of?: (row: Row) => unknown;
}

const BATCH = 20_000;
const ts = (v: unknown) => (v === null || v === undefined ? null : new Date(String(v)));
const bool = (v: unknown) => (v === null || v === undefined ? null : Number(v) === 1);
const int = (v: unknown) => (v === null || v === undefined ? null : BigInt(Math.round(Number(v))));
const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));

const COLUMNS: Record<ParquetTable, Column[]> = {
  runs: [
    { name: "id", type: "STRING" },
    { name: "name", type: "STRING" },
    { name: "system", type: "STRING" },
    { name: "model", type: "STRING" },
    { name: "dataset_id", type: "STRING" },
    { name: "benchmark", type: "STRING" },
    { name: "created_at", type: "TIMESTAMP", of: (r) => ts(r.created_at) },
    { name: "archived_at", type: "TIMESTAMP", of: (r) => ts(r.archived_at) },
    { name: "simulated", type: "BOOLEAN", of: (r) => Number(r.simulated ?? 0) === 1 },
    // Runs of reruns and of sweeps stay out of the Experiments page's default view (docs/notebooks.md).
    { name: "reruns", type: "BOOLEAN", of: (r) => Number(r.reruns ?? 0) === 1 },
    { name: "sweep", type: "STRING" },
    ...["traces", "questions", "judged", "correct", "ex_judged", "ex_correct"].map((name) => ({
      name,
      type: "INT64" as const,
      of: (r: Row) => int(r[name]),
    })),
    { name: "input_tokens", type: "INT64", of: (r) => int(r.input_tokens) },
    { name: "output_tokens", type: "INT64", of: (r) => int(r.output_tokens) },
    { name: "cost_usd", type: "DOUBLE", of: (r) => num(r.cost_usd) },
  ],
  traces: [
    { name: "id", type: "STRING" },
    { name: "run_id", type: "STRING" },
    { name: "question_id", type: "STRING" },
    { name: "sample", type: "INT32" },
    { name: "db_id", type: "STRING" },
    { name: "difficulty", type: "STRING" },
    { name: "status", type: "STRING" },
    { name: "recorded_correct", type: "BOOLEAN", of: (r) => bool(r.recorded_correct) },
    { name: "ex_outcome", type: "STRING" },
    { name: "correct", type: "BOOLEAN", of: (r) => bool(r.correct) },
    { name: "step_count", type: "INT32" },
    { name: "tool_call_count", type: "INT32" },
    { name: "exploratory_calls", type: "INT32" },
    { name: "gold_count", type: "INT32" },
    { name: "over_exploration", type: "INT32" },
    { name: "extra_table_count", type: "INT32" },
    { name: "empty_probe_count", type: "INT32" },
    { name: "input_tokens", type: "INT64", of: (r) => (Number(r.tokens_recorded) ? int(r.input_tokens) : null) },
    { name: "output_tokens", type: "INT64", of: (r) => (Number(r.tokens_recorded) ? int(r.output_tokens) : null) },
    { name: "cost_usd", type: "DOUBLE", of: (r) => num(r.cost_usd) },
    { name: "directive_recall", type: "DOUBLE", of: (r) => num(r.directive_recall) },
    { name: "directive_flag_rate", type: "DOUBLE", of: (r) => num(r.directive_flag_rate) },
    { name: "question_text", type: "STRING" },
    { name: "final_sql", type: "STRING" },
    { name: "gold_sql", type: "STRING" },
    { name: "created_at", type: "TIMESTAMP", of: (r) => ts(r.created_at) },
  ],
  steps: [
    { name: "trace_id", type: "STRING" },
    { name: "seq", type: "INT32" },
    { name: "type", type: "STRING" },
    { name: "tool", type: "STRING" },
    { name: "tool_role", type: "STRING" },
    { name: "tables", type: "STRING" },
    { name: "exploratory", type: "BOOLEAN", of: (r) => bool(r.exploratory) },
    { name: "empty_result", type: "BOOLEAN", of: (r) => bool(r.empty_result) },
    { name: "error", type: "STRING" },
    { name: "args", type: "STRING" },
    { name: "result", type: "STRING" },
    { name: "content", type: "STRING" },
    { name: "input_tokens", type: "INT64", of: (r) => int(r.input_tokens) },
    { name: "output_tokens", type: "INT64", of: (r) => int(r.output_tokens) },
    { name: "duration_ms", type: "DOUBLE", of: (r) => num(r.duration_ms) },
  ],
  labels: [
    { name: "trace_id", type: "STRING" },
    { name: "seq", type: "INT32" },
    { name: "label", type: "STRING" },
    { name: "who", type: "STRING" },
    { name: "at", type: "TIMESTAMP", of: (r) => ts(r.at) },
  ],
  scores: [
    { name: "trace_id", type: "STRING" },
    { name: "seq", type: "INT32" },
    { name: "name", type: "STRING" },
    { name: "kind", type: "STRING" },
    { name: "value", type: "DOUBLE", of: (r) => num(r.value) },
    { name: "category", type: "STRING" },
    { name: "source", type: "STRING" },
    { name: "comment", type: "STRING" },
    { name: "at", type: "TIMESTAMP", of: (r) => ts(r.at) },
  ],
};

/** The table's rows, a batch at a time (keyset pages: no offset walks), of one run or all. */
async function* rowsOf(sql: Sql, table: ParquetTable, runId?: string): AsyncGenerator<Row[]> {
  const q = qb(sql);
  if (table === "runs") {
    const runs = await many(
      sql,
      q
        .selectFrom("runs as r")
        .select((eb) => [
          "r.id",
          "r.name",
          "r.system",
          "r.model",
          "r.dataset_id",
          "r.benchmark",
          "r.created_at",
          "r.archived_at",
          jsonValue(sql, eb, "r.config", "simulated").as("simulated"),
          jsonValue(sql, eb, "r.config", "reruns").as("reruns"),
          jsonText(sql, eb, "r.config", "sweep").as("sweep"),
        ])
        .$if(Boolean(runId), (w) => w.where("r.id", "=", runId!))
        .orderBy("r.created_at"),
    );
    const totals = await readRunTotals(
      sql,
      runs.map((r) => r.id),
    );
    yield runs.map((r) => {
      const t = totals.get(r.id)!;
      return {
        ...r,
        traces: t.traces,
        questions: t.questions,
        judged: t.judged,
        correct: t.correct,
        ex_judged: t.exJudged,
        ex_correct: t.exCorrect,
        input_tokens: t.tokensRecorded ? t.inputTokens : null,
        output_tokens: t.tokensRecorded ? t.outputTokens : null,
        cost_usd: t.cost,
      };
    });
    return;
  }
  if (table === "labels") {
    yield await many(
      sql,
      q
        .selectFrom("labels as x")
        .select(["x.trace_id", "x.seq", "x.label", "x.who", "x.created_at as at"])
        .$if(Boolean(runId), (w) =>
          w.where("x.trace_id", "in", (eb) => eb.selectFrom("traces").select("id").where("run_id", "=", runId!)),
        )
        .orderBy("x.trace_id")
        .orderBy("x.seq"),
    );
    return;
  }
  if (table === "scores") {
    yield await many(
      sql,
      q
        .selectFrom("scores as x")
        .select([
          "x.trace_id",
          "x.seq",
          "x.name",
          "x.kind",
          "x.value",
          "x.category",
          "x.source",
          "x.comment",
          "x.created_at as at",
        ])
        .$if(Boolean(runId), (w) =>
          w.where("x.trace_id", "in", (eb) => eb.selectFrom("traces").select("id").where("run_id", "=", runId!)),
        )
        .orderBy("x.trace_id")
        .orderBy("x.seq"),
    );
    return;
  }
  // traces and steps: the traces in id order, a batch at a time; steps follow their traces
  let after: string | null = null;
  for (;;) {
    const ids: string[] = (
      await many(
        sql,
        q
          .selectFrom("traces")
          .select("id")
          .$if(Boolean(runId), (w) => w.where("run_id", "=", runId!))
          .$if(after !== null, (w) => w.where("id", ">", after!))
          .orderBy("id")
          .limit(table === "traces" ? BATCH : 500),
      )
    ).map((r) => r.id);
    if (!ids.length) return;
    after = ids.at(-1)!;
    if (table === "traces")
      yield await many(
        sql,
        q
          .selectFrom("traces as t")
          .select((eb) => [
            "t.id",
            "t.run_id",
            "t.question_id",
            "t.sample",
            "t.db_id",
            "t.difficulty",
            "t.status",
            "t.recorded_correct",
            "t.ex_outcome",
            effectiveCorrect(eb, "t.ex_outcome", "t.recorded_correct").as("correct"),
            "t.step_count",
            "t.tool_call_count",
            "t.exploratory_calls",
            "t.gold_count",
            "t.over_exploration",
            "t.extra_table_count",
            "t.empty_probe_count",
            "t.input_tokens",
            "t.output_tokens",
            "t.tokens_recorded",
            eb.fn.coalesce("t.cost_usd", "t.cost_computed_usd").as("cost_usd"),
            "t.directive_recall",
            "t.directive_flag_rate",
            "t.question_text",
            "t.final_sql",
            "t.gold_sql",
            "t.created_at",
          ])
          .where((eb) => inJsonArray(sql, eb, "t.id", ids))
          .orderBy("t.id"),
      );
    else
      yield await many(
        sql,
        q
          .selectFrom("steps as s")
          .leftJoin("blobs as b", "b.hash", "s.result_blob")
          .select((eb) => [
            "s.trace_id",
            "s.seq",
            "s.type",
            "s.tool",
            "s.tool_role",
            "s.tables",
            "s.exploratory",
            "s.empty_result",
            "s.error",
            "s.args",
            eb.fn.coalesce("s.result", "b.content").as("result"),
            "s.content",
            "s.input_tokens",
            "s.output_tokens",
            "s.duration_ms",
          ])
          .where((eb) => inJsonArray(sql, eb, "s.trace_id", ids))
          .orderBy("s.trace_id")
          .orderBy("s.seq"),
      );
  }
}

const columnData = (columns: Column[], rows: Row[]) =>
  columns.map((c) => ({
    name: c.name,
    type: c.type,
    data: rows.map((r) => {
      const v = c.of ? c.of(r) : (r[c.name] ?? null);
      return c.type === "INT32" && v !== null ? Number(v) : v;
    }),
  }));

/** Writes one table as a Parquet file; how many rows it holds. */
export async function writeParquet(sql: Sql, table: ParquetTable, file: string, runId?: string): Promise<number> {
  const columns = COLUMNS[table];
  const writer = new ParquetWriter({
    writer: fileWriter(file),
    schema: schemaFromColumnData({ columnData: columnData(columns, []) }),
    createdBy: "metron",
  });
  let rows = 0;
  for await (const batch of rowsOf(sql, table, runId)) {
    if (!batch.length) continue;
    await writer.write({ columnData: columnData(columns, batch), rowGroupSize: BATCH });
    rows += batch.length;
  }
  await writer.finish();
  return rows;
}

/** `metron export --format parquet DIR`: every table, `<table>.parquet`. */
export async function exportParquet(sql: Sql, dir: string, runId?: string): Promise<{ table: string; rows: number }[]> {
  mkdirSync(dir, { recursive: true });
  const out = [];
  for (const table of PARQUET_TABLES)
    out.push({ table, rows: await writeParquet(sql, table, path.join(dir, `${table}.parquet`), runId) });
  return out;
}

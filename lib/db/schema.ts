/**
 * The store's schema, by hand: the source of truth for the migrations in drizzle/ (and, derived, drizzle-pg/). The
 * runs, their uploads, traces, steps and blobs here; the datasets in schema-datasets.ts, what is built on the runs
 * in schema-work.ts, both re-exported so `schema` is every table.
 */
import { sql } from "drizzle-orm";
import { index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";

export interface TraceTableSets {
  gold: string[] | null;
  goldMethod: string | null;
  goldError?: string;
  explored: string[];
  nonGoldExplored: string[] | null;
  goldNeverExplored: string[] | null;
  final: string[] | null;
  finalMethod: string | null;
  extra: string[] | null;
  violations: string[] | null;
  /** Tables of the question's database, when the dataset is known. */
  database: string[] | null;
}

import { createdAt } from "./schema-columns";

export const runs = sqliteTable("runs", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  system: text("system").notNull(),
  model: text("model").notNull(),
  benchmark: text("benchmark"),
  config: text("config", { mode: "json" }).$type<Record<string, unknown>>(),
  datasetId: text("dataset_id"),
  /** The run's own tool → role mapping, merged over the default one. */
  toolRoles: text("tool_roles", { mode: "json" }).$type<Record<string, string>>(),
  /** How the run was last evaluated (comparison mode, numeric mode), shown beside its EX. */
  exSettings: text("ex_settings", { mode: "json" }).$type<{ mode: string; numeric: string; evaluated_at: string }>(),
  description: text("description"),
  tags: text("tags", { mode: "json" }).$type<string[]>(),
  /** Archived runs are hidden from lists and figures by default, never deleted. */
  archivedAt: text("archived_at"),
  /** Bumped by every write that changes the run's traces or their metrics: the key of cached aggregates. */
  version: integer("version").notNull().default(0),
  createdAt: createdAt(),
});

export const uploads = sqliteTable("uploads", {
  id: text("id").primaryKey(),
  source: text("source").notNull().default("cli"),
  fileName: text("file_name"),
  bytes: integer("bytes").notNull().default(0),
  lines: integer("lines").notNull().default(0),
  inserted: integer("inserted").notNull().default(0),
  duplicates: integer("duplicates").notNull().default(0),
  errorCount: integer("error_count").notNull().default(0),
  runIds: text("run_ids", { mode: "json" })
    .$type<string[]>()
    .notNull()
    .default(sql`'[]'`),
  createdAt: createdAt(),
});

export const uploadErrors = sqliteTable(
  "upload_errors",
  {
    uploadId: text("upload_id").notNull(),
    line: integer("line").notNull(),
    message: text("message").notNull(),
  },
  (t) => [index("upload_errors_upload").on(t.uploadId, t.line)],
);

export const traces = sqliteTable(
  "traces",
  {
    id: text("id").primaryKey(),
    runId: text("run_id").notNull(),
    questionId: text("question_id").notNull(),
    sample: integer("sample").notNull().default(0),
    dbId: text("db_id"),
    questionText: text("question_text"),
    evidence: text("evidence"),
    goldSql: text("gold_sql"),
    difficulty: text("difficulty"),
    directives: text("directives", { mode: "json" }).$type<{
      strategy: string;
      irrelevant_tables: string[];
      at_step?: number;
    }>(),
    finalSql: text("final_sql"),
    recordedCorrect: integer("recorded_correct", { mode: "boolean" }),
    status: text("status").notNull(),
    outcomeError: text("outcome_error"),
    stepCount: integer("step_count").notNull().default(0),
    toolCallCount: integer("tool_call_count").notNull().default(0),
    errorStepCount: integer("error_step_count").notNull().default(0),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    reasoningTokens: integer("reasoning_tokens").notNull().default(0),
    cachedInputTokens: integer("cached_input_tokens").notNull().default(0),
    /** Whether the trace recorded token usage at all: tokens of a trace that did not are unknown, not 0. */
    tokensRecorded: integer("tokens_recorded", { mode: "boolean" }).notNull().default(true),
    costUsd: real("cost_usd"),
    startedAt: text("started_at"),
    durationMs: real("duration_ms"),
    meta: text("meta", { mode: "json" }).$type<Record<string, unknown>>(),
    /** The trace this one reruns (`meta.rerun_of.trace_id`), as a column so a trace's reruns are found by index. */
    rerunOf: text("rerun_of"),
    /** The agent job that produced this trace (`meta.rerun_job`), likewise. */
    rerunJob: text("rerun_job"),
    uploadId: text("upload_id").notNull(),
    createdAt: createdAt(),
    // Per-trace metrics (lib/metrics/trace-metrics.ts), computed at ingest and by `metron recompute`.
    exploratoryCalls: integer("exploratory_calls").notNull().default(0),
    goldCount: integer("gold_count"),
    overExploration: integer("over_exploration"),
    extraTableCount: integer("extra_table_count"),
    directiveRecall: real("directive_recall"),
    directiveFlagRate: real("directive_flag_rate"),
    violationCount: integer("violation_count"),
    /** SQL probes whose result was empty; null when no probe's result was recorded. */
    emptyProbeCount: integer("empty_probe_count"),
    callsSchemaListing: integer("calls_schema_listing").notNull().default(0),
    callsSchemaExploration: integer("calls_schema_exploration").notNull().default(0),
    callsDataInspection: integer("calls_data_inspection").notNull().default(0),
    callsExecution: integer("calls_execution").notNull().default(0),
    callsSubmission: integer("calls_submission").notNull().default(0),
    callsOther: integer("calls_other").notNull().default(0),
    costComputedUsd: real("cost_computed_usd"),
    /** Table lists behind the counts: gold, explored, final, extra, violations, and how each was found. */
    tableSets: text("table_sets", { mode: "json" }).$type<TraceTableSets>(),
    // Table-level schema linking: final-SQL tables that are gold, final-SQL tables, gold tables (null when unknown).
    linkTruePositive: integer("link_tp"),
    linkPredicted: integer("link_pred"),
    linkGold: integer("link_gold"),
    // Execution accuracy (lib/eval): null until evaluated.
    exOutcome: text("ex_outcome"),
    /** Identity of the predicted result (rows as a set), for majority votes over samples. */
    exResultHash: text("ex_result_hash"),
    exError: text("ex_error"),
    evaluatedAt: text("evaluated_at"),
  },
  (t) => [
    index("traces_run_question").on(t.runId, t.questionId, t.sample),
    index("traces_upload").on(t.uploadId),
    // The same question in other runs (the question page), without walking every trace of the store.
    index("traces_question").on(t.questionId, t.runId),
    // A run's traces a page at a time by id (the API's cursor).
    index("traces_run_id").on(t.runId, t.id),
    index("traces_rerun_of")
      .on(t.rerunOf)
      .where(sql`rerun_of IS NOT NULL`),
    index("traces_rerun_job")
      .on(t.rerunJob)
      .where(sql`rerun_job IS NOT NULL`),
  ],
);

export const steps = sqliteTable(
  "steps",
  {
    traceId: text("trace_id").notNull(),
    seq: integer("seq").notNull(),
    type: text("type").notNull(),
    tool: text("tool"),
    args: text("args"),
    /** Results under the blob threshold are inline; larger ones live once in `blobs`. */
    result: text("result"),
    resultBlob: text("result_blob"),
    resultSize: integer("result_size").notNull().default(0),
    error: text("error"),
    role: text("role"),
    content: text("content"),
    startedAt: text("started_at"),
    durationMs: real("duration_ms"),
    inputTokens: integer("input_tokens"),
    outputTokens: integer("output_tokens"),
    reasoningTokens: integer("reasoning_tokens"),
    cachedInputTokens: integer("cached_input_tokens"),
    model: text("model"),
    meta: text("meta"),
    /** The tool's role in the taxonomy (schema_listing, …); `role` above is a message's author. */
    toolRole: text("tool_role"),
    tables: text("tables", { mode: "json" }).$type<string[]>(),
    exploratory: integer("exploratory", { mode: "boolean" }).notNull().default(false),
    /** A SQL probe whose recorded result has no rows (SDE-SQL); null when it is not a probe or no result was recorded. */
    emptyResult: integer("empty_result", { mode: "boolean" }),
    /** The seq of the empty-result probe this SQL refines (same tables, changed SQL). */
    refines: integer("refines"),
  },
  (t) => [
    primaryKey({ columns: [t.traceId, t.seq] }),
    index("steps_blob")
      .on(t.resultBlob)
      .where(sql`result_blob IS NOT NULL`),
  ],
);

export const blobs = sqliteTable("blobs", {
  hash: text("hash").primaryKey(),
  content: text("content").notNull(),
});

export type Run = typeof runs.$inferSelect;
export type TraceRow = typeof traces.$inferSelect;
export type StepRow = typeof steps.$inferSelect;
export type Upload = typeof uploads.$inferSelect;

export * from "./schema-datasets";
export * from "./schema-work";

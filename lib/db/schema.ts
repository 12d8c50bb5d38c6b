/** The store's schema, by hand: the source of truth for the migrations in drizzle/. */
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

const createdAt = () =>
  text("created_at")
    .notNull()
    .default(sql`(strftime('%Y-%m-%dT%H:%M:%fZ','now'))`);

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
  (t) => [index("traces_run_question").on(t.runId, t.questionId, t.sample), index("traces_upload").on(t.uploadId)],
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

export interface ColumnInfo {
  name: string;
  type: string;
  pk: boolean;
  description?: string;
  valueDescription?: string;
}
export interface TableInfo {
  name: string;
  rows: number;
  columns: ColumnInfo[];
}
export interface ForeignKey {
  table: string;
  column: string;
  refTable: string;
  refColumn: string;
}

export const datasets = sqliteTable("datasets", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  format: text("format").notNull(),
  questionCount: integer("question_count").notNull().default(0),
  createdAt: createdAt(),
});

export const databases = sqliteTable(
  "databases",
  {
    id: text("id").primaryKey(),
    datasetId: text("dataset_id").notNull(),
    dbId: text("db_id").notNull(),
    path: text("path").notNull(),
    sha256: text("sha256").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    /** Built from tables.json or DDL: no rows, so query results are empty. */
    schemaOnly: integer("schema_only", { mode: "boolean" }).notNull().default(false),
    source: text("source").notNull(),
    tables: text("tables", { mode: "json" }).$type<TableInfo[]>().notNull(),
    foreignKeys: text("foreign_keys", { mode: "json" }).$type<ForeignKey[]>().notNull(),
    tableCount: integer("table_count").notNull().default(0),
    columnCount: integer("column_count").notNull().default(0),
    rowCount: integer("row_count").notNull().default(0),
  },
  (t) => [index("databases_dataset").on(t.datasetId, t.dbId)],
);

export const questions = sqliteTable(
  "questions",
  {
    datasetId: text("dataset_id").notNull(),
    questionId: text("question_id").notNull(),
    dbId: text("db_id").notNull(),
    text: text("text").notNull(),
    evidence: text("evidence"),
    goldSql: text("gold_sql"),
    difficulty: text("difficulty"),
    goldTables: text("gold_tables", { mode: "json" }).$type<string[]>(),
    goldTablesMethod: text("gold_tables_method"),
    goldTablesError: text("gold_tables_error"),
    /** Spider 2.0: the gold answers as CSV texts (`<id>.csv`, or `<id>_a.csv`, `<id>_b.csv`, …), a JSON array. */
    goldAnswers: text("gold_answers", { mode: "json" }).$type<string[]>(),
    /** Spider 2.0: the question's evaluation standard (`condition_cols`, `ignore_order`), as in spider2lite_eval.jsonl. */
    evalStandard: text("eval_standard", { mode: "json" }).$type<{ condition_cols?: unknown; ignore_order?: boolean }>(),
    position: integer("position").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.datasetId, t.questionId] })],
);

/** Gold query results, cached per (database file hash, SQL). */
export const goldResults = sqliteTable(
  "gold_results",
  {
    dbSha256: text("db_sha256").notNull(),
    sqlHash: text("sql_hash").notNull(),
    result: text("result"),
    error: text("error"),
  },
  (t) => [primaryKey({ columns: [t.dbSha256, t.sqlHash] })],
);

export type Dataset = typeof datasets.$inferSelect;
export type DatabaseRow = typeof databases.$inferSelect;
export type QuestionRow = typeof questions.$inferSelect;

/** Tool calls per run and tool, kept at ingest (and by recompute) so run pages never scan every step. */
export const runToolCounts = sqliteTable(
  "run_tool_counts",
  {
    runId: text("run_id").notNull(),
    tool: text("tool").notNull(),
    role: text("role").notNull(),
    calls: integer("calls").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.runId, t.tool] })],
);

/**
 * Agent jobs: one question run through the agent loop, alone (a rerun of one trace) or as part of a sweep. The
 * state lives here, not in server memory: `queued`, `running` (held by a worker under a lease it renews),
 * `done`, `failed`, `cancelled` (and `lost`, left by versions before durable jobs). A worker that dies leaves its
 * job `running` with a lease that runs out (or a dead process id): another worker takes it back and runs it from
 * scratch, replacing any trace it had stored (lib/agent/jobs.ts).
 */
export const rerunJobs = sqliteTable(
  "rerun_jobs",
  {
    id: text("id").primaryKey(),
    /** The trace a rerun starts from; for a sweep, the source run's trace of the question when there is one. */
    traceId: text("trace_id"),
    /** The sweep (its run's id) this job belongs to; null for a single rerun. */
    sweepId: text("sweep_id"),
    datasetId: text("dataset_id"),
    questionId: text("question_id"),
    /** The sample index the job's trace takes in its run (sweeps: 0..K-1). */
    sample: integer("sample"),
    /** Who asked: the access token's name, else the client's address. */
    client: text("client").notNull(),
    provider: text("provider").notNull(),
    model: text("model").notNull(),
    variant: text("variant").notNull(),
    /** The harness profile the job runs (lib/agent/harnesses.ts); null: Metron's own loop. */
    harness: text("harness"),
    limits: text("limits", { mode: "json" }).$type<{ maxSteps: number; wallTimeMs: number; maxOutputTokens: number }>(),
    state: text("state").notNull(),
    attempts: integer("attempts").notNull().default(0),
    /** Rate-limited attempts (HTTP 429), retried after the provider's retry-after without counting as attempts. */
    rateLimited: integer("rate_limited").notNull().default(0),
    /** Not taken before this time (ms since the epoch): the back-off of a retry. */
    notBefore: integer("not_before"),
    /** The worker holding a running job (`host:pid:nonce`) and until when (ms since the epoch). */
    worker: text("worker"),
    leaseUntil: integer("lease_until"),
    error: text("error"),
    resultTraceId: text("result_trace_id"),
    tokens: integer("tokens"),
    costUsd: real("cost_usd"),
    createdAt: createdAt(),
    startedAt: text("started_at"),
    finishedAt: text("finished_at"),
  },
  (t) => [
    index("rerun_jobs_trace").on(t.traceId),
    index("rerun_jobs_state").on(t.state),
    index("rerun_jobs_sweep").on(t.sweepId, t.state),
  ],
);

/**
 * A sweep: a directive variant and model run over a selection of a dataset's questions, K samples each, into a
 * run of its own (`run_id`), under a concurrency and a budget. Its jobs are rows of `rerun_jobs`.
 */
export const sweeps = sqliteTable("sweeps", {
  runId: text("run_id").primaryKey(),
  datasetId: text("dataset_id").notNull(),
  /** The run whose questions were chosen (failing ones) and that outcomes are compared with; may be null. */
  sourceRunId: text("source_run_id"),
  selection: text("selection", { mode: "json" }).$type<{ kind: string; count: number; ids?: string[] }>().notNull(),
  provider: text("provider").notNull(),
  model: text("model").notNull(),
  variant: text("variant").notNull(),
  /** The harness profile the sweep runs, and its kind and version when it started; null: Metron's own loop. */
  harness: text("harness", { mode: "json" }).$type<{ name: string; kind: string; version: string | null }>(),
  limits: text("limits", { mode: "json" })
    .$type<{ maxSteps: number; wallTimeMs: number; maxOutputTokens: number }>()
    .notNull(),
  samples: integer("samples").notNull().default(1),
  concurrency: integer("concurrency").notNull().default(2),
  budget: text("budget", { mode: "json" })
    .$type<{ maxCostUsd?: number; maxTokens?: number; maxWallMs?: number }>()
    .notNull(),
  /** `running`, `paused`, `done`, `stopped` (a budget), `cancelled`. */
  state: text("state").notNull(),
  stoppedBy: text("stopped_by"),
  createdBy: text("created_by").notNull(),
  createdAt: createdAt(),
  finishedAt: text("finished_at"),
});

/** What was changed on a run, when, and by whom (the access token's name; "local" without tokens; "cli"). */
export const runChanges = sqliteTable(
  "run_changes",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    runId: text("run_id").notNull(),
    at: createdAt(),
    who: text("who").notNull(),
    change: text("change").notNull(),
  },
  (t) => [index("run_changes_run").on(t.runId, t.id)],
);

/** A saved experiment: a named, fixed set of runs of one dataset, whose figures change only when its set does. */
export const experiments = sqliteTable("experiments", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  datasetId: text("dataset_id"),
  runIds: text("run_ids", { mode: "json" }).$type<string[]>().notNull(),
  createdAt: createdAt(),
});

/**
 * Full-text search (lib/search): which traces are in the FTS5 index `search_docs` and the first rowid of their
 * documents (rowids `base` … `base + 2^20 - 1`: the question, final SQL, gold SQL, then one per step), so that a
 * trace's documents are removed with one range delete. `search_docs` itself is a virtual table created by SQL in
 * the migration (drizzle does not describe FTS5 tables).
 */
export const searchIndexed = sqliteTable("search_indexed", {
  traceId: text("trace_id").primaryKey(),
  base: integer("base").notNull(),
});

/**
 * Labels for error analysis, on a trace (`seq` -1) or one of its steps: a preset failure cause
 * (lib/metrics/failure-taxonomy.ts), a run's own cause, or a free tag. Keyed by trace identity (a content hash): they survive
 * recompute and re-ingest of the same trace, even after a delete.
 */
export const labels = sqliteTable(
  "labels",
  {
    traceId: text("trace_id").notNull(),
    seq: integer("seq").notNull().default(-1),
    label: text("label").notNull(),
    who: text("who").notNull(),
    at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.traceId, t.seq, t.label] }), index("labels_label").on(t.label)],
);

/** A free-text note on a trace (`seq` -1) or a step. */
export const notes = sqliteTable(
  "notes",
  {
    traceId: text("trace_id").notNull(),
    seq: integer("seq").notNull().default(-1),
    note: text("note").notNull(),
    who: text("who").notNull(),
    at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.traceId, t.seq] })],
);

/** Failure causes a run adds to the preset taxonomy. */
export const runCauses = sqliteTable(
  "run_causes",
  {
    runId: text("run_id").notNull(),
    label: text("label").notNull(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.label] })],
);

/**
 * Spans received on the OTLP endpoint (`POST /v1/traces`), kept until their trace is assembled (lib/otel/receiver.ts).
 * Keyed by (trace id, span id): a span sent again is not stored twice.
 */
export const otlpSpans = sqliteTable(
  "otlp_spans",
  {
    traceId: text("trace_id").notNull(),
    spanId: text("span_id").notNull(),
    groupKey: text("group_key").notNull(),
    /** The span as lib/trace/adapters/otlp.ts flattens it (nanosecond times as strings). */
    body: text("body").notNull(),
    receivedAt: integer("received_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.traceId, t.spanId] }), index("otlp_spans_group").on(t.groupKey)],
);

/** A group of spans (one agent trace): when it was last added to, whether its root arrived, when it was stored. */
export const otlpGroups = sqliteTable("otlp_groups", {
  groupKey: text("group_key").primaryKey(),
  lastSpanAt: integer("last_span_at").notNull(),
  rootSeen: integer("root_seen").notNull().default(0),
  /** Set once the group was assembled and ingested; spans that arrive later are refused, not stored. */
  assembledAt: integer("assembled_at"),
  /** The ingest's outcome: inserted / duplicate / the error. */
  outcome: text("outcome"),
});

/**
 * The store's schema (schema.ts re-exports it): what is built on the runs — tool counts, agent jobs and sweeps, run
 * changes, experiments, the search index's bookkeeping, labels and notes, causes, received OTLP spans.
 */
import { index, integer, primaryKey, real, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { createdAt } from "./schema-columns";

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
 * scratch, replacing any trace it had stored (lib/jobs/queue.ts; the table was `rerun_jobs` until migration 0015).
 */
export const jobs = sqliteTable(
  "jobs",
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
    index("jobs_trace").on(t.traceId),
    index("jobs_state").on(t.state),
    index("jobs_sweep").on(t.sweepId, t.state),
  ],
);

/**
 * A sweep: a directive variant and model run over a selection of a dataset's questions, K samples each, into a
 * run of its own (`run_id`), under a concurrency and a budget. Its jobs are rows of `jobs`.
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
export const searchIndexed = sqliteTable(
  "search_indexed",
  {
    traceId: text("trace_id").primaryKey(),
    base: integer("base").notNull(),
  },
  // A document's rowid names its trace: the base is the rowid's multiple of SEARCH_SPAN (the index keeps no copy of it).
  (t) => [uniqueIndex("search_indexed_base").on(t.base)],
);

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

/**
 * A run's totals over its traces (lib/db/queries/run-totals.ts: the RunAggregates of docs/metrics.md), as of the
 * run's `version`: the home page lists runs from here instead of aggregating every trace of the store on each
 * request, and a run page's summary reads it after a restart. Written when an upload, an evaluation or a recompute
 * commits, and by the first read that finds it behind the run's version.
 */
export const runTotals = sqliteTable("run_totals", {
  runId: text("run_id").primaryKey(),
  version: integer("version").notNull(),
  traces: integer("traces").notNull(),
  questions: integer("questions").notNull(),
  judged: integer("judged").notNull(),
  correct: integer("correct").notNull(),
  exJudged: integer("ex_judged").notNull(),
  exCorrect: integer("ex_correct").notNull(),
  recordedJudged: integer("recorded_judged").notNull(),
  recordedCorrect: integer("recorded_correct").notNull(),
  exploratoryWithGold: integer("exploratory_with_gold"),
  goldSum: integer("gold_sum"),
  failedWithExtra: integer("failed_with_extra"),
  inputTokens: integer("input_tokens").notNull(),
  outputTokens: integer("output_tokens").notNull(),
  tokensRecorded: integer("tokens_recorded").notNull(),
  goldErrors: integer("gold_errors").notNull(),
  cost: real("cost"),
  directiveOverheadCost: real("directive_overhead_cost"),
  unpricedTraces: integer("unpriced_traces").notNull(),
  directiveRecall: real("directive_recall"),
  directiveFlagRate: real("directive_flag_rate"),
  emptyProbes: integer("empty_probes"),
  probeTraces: integer("probe_traces").notNull(),
  linkTruePositive: integer("link_tp").notNull(),
  linkPredicted: integer("link_pred").notNull(),
  linkGold: integer("link_gold").notNull(),
});

/**
 * What a page derives from runs (a run's units and facets, the Experiments overview of a view, a comparison), kept
 * across restarts (lib/db/queries/run-cache.ts): keyed by what it is of (`kind`, `runs`), and true of the runs'
 * `versions` it records. A write to one of the runs bumps its version, so a kept value is never served stale; it is
 * computed again, and replaced, on the next view.
 */
export const derivedCache = sqliteTable(
  "derived_cache",
  {
    kind: text("kind").notNull(),
    runs: text("runs").notNull(),
    versions: text("versions").notNull(),
    value: text("value").notNull(),
    at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.kind, t.runs] })],
);

/**
 * Custom scores (lib/scores): a named value on a trace (`seq` -1) or one of its steps — numeric, boolean (1/0) or
 * categorical — with where it came from (`api`, `cli`, `human`, `llm-judge:<model>`), when, and a comment. Keyed by
 * trace identity (a content hash), as labels are: a score survives recompute, and a trace deleted and ingested
 * again finds its scores again. A name has one kind across the store.
 */
export const scores = sqliteTable(
  "scores",
  {
    traceId: text("trace_id").notNull(),
    seq: integer("seq").notNull().default(-1),
    name: text("name").notNull(),
    kind: text("kind").notNull(),
    /** A numeric score, or a boolean as 1/0; null for a categorical one. */
    value: real("value"),
    /** A categorical score's category; null otherwise. */
    category: text("category"),
    source: text("source").notNull(),
    comment: text("comment"),
    at: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.traceId, t.seq, t.name] }), index("scores_name").on(t.name)],
);

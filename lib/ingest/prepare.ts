/**
 * The CPU half of persisting a trace: its identity (hash), its metrics, and the row values to insert. Kept apart
 * from the writes so a worker thread can prepare traces while the main thread writes (prepare-worker.ts).
 */
import { hash } from "node:crypto";
import type { RoleMap } from "@/lib/sql/classify-step";
import { runIdOf, serializeTrace } from "@/lib/trace/hash";
import type { Trace } from "@/lib/trace/types";
import type { Column } from "@/lib/db/typed";
import { countToolCalls, MEASURED_COLUMNS, measuredValues, type ToolCalls, type TraceMeasurer } from "./measure";

/**
 * Results at or above this many characters (as JSON) enter a trace's identity by their SHA-256 (lib/trace/hash.ts)
 * and are stored once in `blobs`, keyed by that hash. Changing it would change every trace's id.
 */
export const BLOB_THRESHOLD = 2048;

/**
 * A schema tool's result (listing or describing tables) from this many characters is stored once in `blobs` too:
 * it is the same text in every trace that describes that table of that database (every sample, every run), and a
 * reference costs about 150 bytes (the hash in the step, its index entry). Storage only: the trace's id is unchanged.
 */
export const SCHEMA_BLOB_MIN = 512;
const SCHEMA_ROLES = new Set(["schema_listing", "schema_exploration"]);

export interface PreparedTrace {
  run: {
    id: string;
    name: string;
    system: string;
    model: string;
    benchmark: string | null;
    config: string | null;
    datasetId: string | null;
  };
  id: string;
  /** The traces row after (id, run_id, upload_id), in TRACE_COLUMNS order. */
  values: unknown[];
  /** Steps rows after trace_id, in STEP_COLUMNS order. */
  steps: unknown[][];
  blobs: [string, string][];
  /** The trace's classified tool calls counted per tool, for the run's tool counts. */
  tools: ToolCalls;
}

export const TRACE_COLUMNS = [
  "question_id",
  "sample",
  "db_id",
  "question_text",
  "evidence",
  "gold_sql",
  "difficulty",
  "directives",
  "final_sql",
  "recorded_correct",
  "status",
  "outcome_error",
  "step_count",
  "tool_call_count",
  "error_step_count",
  "input_tokens",
  "output_tokens",
  "reasoning_tokens",
  "cached_input_tokens",
  "cost_usd",
  "started_at",
  "duration_ms",
  "meta",
  "rerun_of",
  "rerun_job",
  ...MEASURED_COLUMNS,
  "tokens_recorded",
] as const satisfies Column<"traces">[];

export const STEP_COLUMNS = [
  "seq",
  "type",
  "tool",
  "args",
  "result",
  "result_blob",
  "result_size",
  "error",
  "role",
  "content",
  "started_at",
  "duration_ms",
  "input_tokens",
  "output_tokens",
  "reasoning_tokens",
  "cached_input_tokens",
  "model",
  "meta",
  "tool_role",
  "tables",
  "exploratory",
  "empty_result",
  "refines",
] as const satisfies Column<"steps">[];

/** The trace a rerun's `meta.rerun_of.trace_id` names (kept in a column of its own, indexed), or null. */
function rerunOf(meta: Record<string, unknown>): string | null {
  const of = meta.rerun_of as { trace_id?: unknown } | undefined;
  return of && typeof of === "object" && typeof of.trace_id === "string" ? of.trace_id : null;
}

const json = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
const bool = (value: boolean | null) => (value === null ? null : value ? 1 : 0);

export function prepareTrace(
  trace: Trace,
  measurer: TraceMeasurer,
  rolesFor: (runId: string) => RoleMap,
): PreparedTrace {
  const runId = runIdOf(trace.run);
  const { id, steps: serialized } = serializeTrace(trace, BLOB_THRESHOLD);
  const measured = measurer.measure(trace, rolesFor(runId));
  const dq = measured.question;
  const q = trace.question;
  let toolCalls = 0;
  let errorSteps = 0;
  for (const step of trace.steps) {
    if (step.type === "tool_call") toolCalls++;
    if (step.type === "error" || step.error) errorSteps++;
  }
  const u = trace.usage;
  const values = [
    q.id,
    trace.sample,
    q.db_id ?? dq?.dbId ?? null,
    q.text ?? dq?.text ?? null,
    q.evidence ?? dq?.evidence ?? null,
    q.gold_sql ?? dq?.goldSql ?? null,
    q.difficulty ?? dq?.difficulty ?? null,
    json(trace.directives),
    trace.final_sql,
    trace.outcome.correct === null ? null : trace.outcome.correct ? 1 : 0,
    trace.outcome.status,
    trace.outcome.error ?? null,
    trace.steps.length,
    toolCalls,
    errorSteps,
    u.input_tokens ?? 0,
    u.output_tokens ?? 0,
    u.reasoning_tokens ?? 0,
    u.cached_input_tokens ?? 0,
    u.cost_usd ?? null,
    trace.started_at ?? null,
    trace.duration_ms ?? null,
    Object.keys(trace.meta).length ? JSON.stringify(trace.meta) : null,
    rerunOf(trace.meta),
    typeof trace.meta.rerun_job === "string" ? trace.meta.rerun_job : null,
    ...measuredValues(measured),
    u.input_tokens !== undefined || u.output_tokens !== undefined ? 1 : 0,
  ];
  const blobs: [string, string][] = [];
  const refinedSeq = (index: number | null) => (index === null ? null : trace.steps[index].seq);
  const steps = trace.steps.map((step, i) => {
    const { args, meta } = serialized[i];
    let result = serialized[i].result;
    const size = result === null ? 0 : result.length;
    const cls = measured.steps[i];
    let blob = serialized[i].resultHash;
    if (blob === null && result !== null && size >= SCHEMA_BLOB_MIN && cls && SCHEMA_ROLES.has(cls.role))
      blob = hash("sha256", result, "hex"); // one-shot: a Hash object per result cost half as much again
    if (blob !== null) {
      blobs.push([blob, result!]);
      result = null;
    }
    const su = step.usage;
    return [
      step.seq,
      step.type,
      step.tool ?? null,
      args,
      result,
      blob,
      size,
      step.error ?? null,
      step.role ?? null,
      step.content ?? null,
      step.started_at ?? null,
      step.duration_ms ?? null,
      su?.input_tokens ?? null,
      su?.output_tokens ?? null,
      su?.reasoning_tokens ?? null,
      su?.cached_input_tokens ?? null,
      step.model ?? null,
      meta,
      cls?.role ?? null,
      cls && cls.tables.length ? JSON.stringify(cls.tables) : null,
      cls?.exploratory ? 1 : 0,
      bool(measured.empty[i]),
      refinedSeq(measured.probes.refines[i]),
    ];
  });
  return {
    run: {
      id: runId,
      name: trace.run.name,
      system: trace.run.system,
      model: trace.run.model,
      benchmark: trace.run.benchmark ?? null,
      config: json(trace.run.config),
      datasetId: measured.datasetId,
    },
    id,
    values,
    steps,
    blobs,
    tools: countToolCalls(measured.steps),
  };
}

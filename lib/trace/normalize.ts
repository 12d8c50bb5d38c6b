/**
 * From a validated line to the canonical `Trace`: unknown fields move into `meta`, run metadata
 * given at upload fills what the file lacks, `final_sql` falls back to the last submission step,
 * usage totals fall back to the sum of the steps'.
 */
import type { StepInput, TraceHeader } from "./schema";
import { isSubmissionTool, normalizeToolName, sqlOfArgs } from "./tool-names";

const LISTING_TOOLS = new Set(["list_tables", "GetSchema", "get_schema"]);
import type { Directives, Outcome, Question, RunDefaults, RunHeader, Step, Trace, TraceUsage } from "./types";

const STEP_KEYS = new Set([
  "type",
  "tool",
  "args",
  "result",
  "error",
  "role",
  "content",
  "started_at",
  "duration_ms",
  "usage",
  "model",
  "meta",
  "kind",
  "trace_id",
  "seq",
]);
const TRACE_KEYS = new Set([
  "kind",
  "trace_id",
  "run",
  "question",
  "sample",
  "directives",
  "steps",
  "final_sql",
  "outcome",
  "usage",
  "started_at",
  "duration_ms",
  "meta",
]);
const RUN_KEYS = ["name", "system", "model", "benchmark", "config"];
const QUESTION_KEYS = ["id", "db_id", "text", "evidence", "gold_sql", "difficulty"];
const DIRECTIVE_KEYS = ["strategy", "irrelevant_tables", "at_step", "overhead"];
const OUTCOME_KEYS = ["correct", "status", "error"];

/** Split an object into its known keys and the rest; `undefined` values are dropped. */
function split(obj: Record<string, unknown>, known: Set<string> | string[]) {
  const isKnown = Array.isArray(known) ? (k: string) => known.includes(k) : (k: string) => known.has(k);
  const kept: Record<string, unknown> = {};
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (v === undefined) continue;
    (isKnown(k) ? kept : extra)[k] = v;
  }
  return { kept, extra };
}

export function normalizeStep(input: StepInput, seq: number): Step {
  // One pass over the keys, as `split` does (a step is normalized per line of every upload: `split`'s two objects
  // and entry arrays were 5 % of an ingest worker's time). The step's keys keep the input's order, `seq` first.
  const source = input as Record<string, unknown>;
  const step: Record<string, unknown> = { seq };
  let extra: Record<string, unknown> | null = null;
  for (const k of Object.keys(source)) {
    const v = source[k];
    if (v === undefined) continue;
    if (!STEP_KEYS.has(k)) (extra ??= {})[k] = v;
    else if (k !== "kind" && k !== "trace_id" && k !== "seq") step[k] = v;
  }
  const meta = extra ? { ...(input.meta ?? {}), ...extra } : input.meta;
  if (meta && Object.keys(meta).length > 0) step.meta = extra ? meta : { ...meta };
  else delete step.meta;
  return step as unknown as Step;
}

export function normalizeTrace(
  header: TraceHeader,
  steps: Step[],
  defaults: RunDefaults = {},
  fallbackName = "unnamed run",
): Trace {
  const { extra } = split(header as Record<string, unknown>, TRACE_KEYS);
  const meta: Record<string, unknown> = { ...(header.meta ?? {}), ...extra };
  const nest = (prefix: string, obj: object | undefined, known: string[]) => {
    if (!obj) return {};
    const { kept, extra: more } = split(obj as Record<string, unknown>, known);
    for (const [k, v] of Object.entries(more)) meta[`${prefix}.${k}`] = v;
    return kept;
  };

  const runIn = nest("run", header.run, RUN_KEYS) as Partial<RunHeader>;
  const run: RunHeader = {
    name: runIn.name ?? defaults.name ?? fallbackName,
    system: runIn.system ?? defaults.system ?? "unknown",
    model: runIn.model ?? defaults.model ?? "unknown",
  };
  const benchmark = runIn.benchmark ?? defaults.benchmark;
  if (benchmark) run.benchmark = benchmark;
  if (runIn.config) run.config = runIn.config;

  const question = nest("question", header.question, QUESTION_KEYS) as unknown as Question;
  const directives = header.directives
    ? (nest("directives", header.directives, DIRECTIVE_KEYS) as unknown as Directives)
    : undefined;
  const outcomeIn = header.outcome ? (nest("outcome", header.outcome, OUTCOME_KEYS) as Partial<Outcome>) : undefined;

  const final_sql = header.final_sql ?? lastSubmittedSql(steps) ?? null;
  const outcome: Outcome = {
    correct: outcomeIn?.correct ?? null,
    status: outcomeIn?.status ?? (final_sql ? "submitted" : "no_submission"),
  };
  if (outcomeIn?.error) outcome.error = outcomeIn.error;

  const trace: Trace = {
    run,
    question,
    sample: header.sample ?? 0,
    steps,
    final_sql,
    outcome,
    usage: header.usage ?? sumUsage(steps),
    meta,
  };
  if (directives) {
    // Directives come with the schema listing: without `at_step`, they are at the first listing call.
    if (directives.at_step === undefined) {
      const listing = steps.find(
        (s) => s.type === "tool_call" && s.tool && LISTING_TOOLS.has(normalizeToolName(s.tool)),
      );
      if (listing) directives.at_step = listing.seq;
    }
    trace.directives = directives;
  }
  if (header.started_at !== undefined) trace.started_at = header.started_at;
  if (header.duration_ms !== undefined) trace.duration_ms = header.duration_ms;
  return trace;
}

export function lastSubmittedSql(steps: Step[]): string | undefined {
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i];
    // A submission call that failed or was refused (a harness that wanted approval) submitted nothing (issue 29).
    if (s.type === "tool_call" && isSubmissionTool(s.tool) && !s.error) {
      const sql = sqlOfArgs(s.args);
      if (sql) return sql;
    }
  }
  return undefined;
}

export function sumUsage(steps: Step[]): TraceUsage {
  const total: TraceUsage = {};
  for (const s of steps) {
    if (!s.usage) continue;
    for (const key of ["input_tokens", "output_tokens", "reasoning_tokens", "cached_input_tokens"] as const) {
      const v = s.usage[key];
      if (v !== undefined) total[key] = (total[key] ?? 0) + v;
    }
  }
  return total;
}

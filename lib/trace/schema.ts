/**
 * The canonical trace format, v1. Every trace Metron stores — uploaded, adapted from a foreign
 * format, or produced by the agent loop — is one `Trace`. A JSONL file mixes two line shapes:
 * a whole trace per line, or event lines (`kind: "trace"` headers and `kind: "step"` steps)
 * assembled by `trace_id`. Unknown fields are kept in `meta`, never dropped.
 */
import { z } from "zod";

export const TRACE_FORMAT_VERSION = 1;

const tokenCount = z.number().int().nonnegative();
/** Question ids are text; BIRD writes numbers, so numbers are accepted and turned into text. */
const id = z.union([z.string().min(1), z.number()]).transform(String);
const jsonObject = z.record(z.string(), z.unknown());

export const usageSchema = z.object({
  input_tokens: tokenCount.optional(),
  output_tokens: tokenCount.optional().describe("includes reasoning tokens"),
  reasoning_tokens: tokenCount.optional(),
  cached_input_tokens: tokenCount.optional(),
});

export const traceUsageSchema = usageSchema.extend({
  cost_usd: z.number().nonnegative().optional(),
});

export const stepTypes = ["tool_call", "message", "reasoning", "error"] as const;

export const stepSchema = z.looseObject({
  type: z.enum(stepTypes),
  tool: z.string().optional(),
  args: z.unknown().optional().describe("tool arguments: an object, or a string as the agent wrote it"),
  result: z.unknown().optional().describe("what the tool returned: text or any JSON value"),
  error: z.string().nullish(),
  role: z.string().optional().describe("message author: user | assistant | system | tool"),
  content: z.string().optional(),
  started_at: z.string().optional().describe("ISO 8601 timestamp"),
  duration_ms: z.number().nonnegative().optional(),
  usage: usageSchema.optional(),
  model: z.string().optional(),
  meta: jsonObject.optional(),
});

export const runSchema = z.looseObject({
  name: z.string().min(1).optional(),
  system: z.string().min(1).optional().describe("the variant, e.g. No Directives, Sophrosyne"),
  model: z.string().min(1).optional(),
  benchmark: z.string().optional().describe("dataset name, used to link questions"),
  config: jsonObject.optional(),
});

export const questionSchema = z.looseObject({
  id,
  db_id: z.string().optional(),
  text: z.string().optional(),
  evidence: z.string().optional(),
  gold_sql: z.string().optional(),
  difficulty: z.string().optional(),
});

export const directivesSchema = z.looseObject({
  strategy: z.string().min(1).describe("none | computed | oracle | any other text"),
  irrelevant_tables: z.array(z.string()).default([]),
  at_step: z.number().int().nonnegative().optional().describe("seq of the step whose response carried them"),
  overhead: traceUsageSchema
    .optional()
    .describe("what computing the directives cost: the cheap model's calls and embeddings"),
});

export const outcomeSchema = z.looseObject({
  correct: z.boolean().nullable().default(null),
  status: z.string().default("submitted").describe("submitted | no_submission | max_steps | error | …"),
  error: z.string().nullish(),
});

const headerShape = {
  run: runSchema.default({}),
  question: questionSchema,
  sample: z.number().int().nonnegative().default(0),
  directives: directivesSchema.optional(),
  final_sql: z.string().nullish(),
  outcome: outcomeSchema.optional(),
  usage: traceUsageSchema.optional(),
  started_at: z.string().optional(),
  duration_ms: z.number().nonnegative().optional(),
  meta: jsonObject.optional(),
};

/** What a whole trace and a trace event share: everything but the steps. */
export const traceHeaderSchema = z.looseObject(headerShape);

/** A whole trace on one line. */
export const traceLineSchema = z.looseObject({
  kind: z.literal("whole").optional(),
  ...headerShape,
  steps: z.array(stepSchema).default([]),
});

/** Event line: the header of a trace written step by step. */
export const traceEventSchema = z.looseObject({
  kind: z.literal("trace"),
  trace_id: z.string().min(1),
  ...headerShape,
});

/** Event line: one step of a trace written step by step. */
export const stepEventSchema = stepSchema.extend({
  kind: z.literal("step"),
  trace_id: z.string().min(1),
  seq: z.number().int().nonnegative(),
});

export const lineSchema = z.union([traceEventSchema, stepEventSchema, traceLineSchema]);

export type TraceHeader = z.output<typeof traceHeaderSchema>;
export type StepInput = z.output<typeof stepSchema>;
export type TraceLine = z.output<typeof traceLineSchema>;
export type TraceEvent = z.output<typeof traceEventSchema>;
export type StepEvent = z.output<typeof stepEventSchema>;
export type Line = z.output<typeof lineSchema>;
export type Usage = z.output<typeof usageSchema>;

/**
 * What the API answers, as zod schemas (stable field names, snake_case, documented in docs/api.md and the OpenAPI
 * document). Unknown values are null, never 0.
 */
import { z } from "zod";

const interval = z.object({
  estimate: z.number(),
  low: z.number(),
  high: z.number(),
  units: z
    .number()
    .int()
    .describe(
      "questions the figure comes from (EX: those judged); under 2, or where every question has the same value, the bounds equal the estimate and the pages show no interval",
    ),
});

export const scoreSummary = z.object({
  name: z.string(),
  kind: z.enum(["numeric", "boolean", "categorical"]),
  n: z.number().int().describe("traces that carry the score"),
  mean: interval.nullable().describe("numeric and boolean: the mean over scored traces, 95 % bootstrap over questions"),
  shares: z
    .array(z.object({ category: z.string(), n: z.number().int(), share: z.number() }))
    .nullable()
    .describe("categorical: each category's share"),
});

export const runMetrics = z.object({
  traces: z.number().int(),
  questions: z.number().int(),
  ex: z
    .object({
      share: z.number(),
      judged: z.number().int(),
      source: z.enum(["re-evaluated", "recorded", "re-evaluated + recorded"]),
    })
    .nullable()
    .describe("execution accuracy: correct over judged traces (docs/metrics.md); null when none was judged"),
  over_exploration: z.number().nullable().describe("(Σ exploratory − Σ gold) / Σ gold; null without gold"),
  failed_with_extra: z.number().int().nullable(),
  input_tokens: z.number().int().nullable().describe("null when no trace recorded usage"),
  output_tokens: z.number().int().nullable(),
  cost_usd: z.number().nullable(),
  unpriced_traces: z.number().int(),
  gold_errors: z.number().int(),
  directive_recall: z.number().nullable(),
  directive_flag_rate: z.number().nullable(),
});

export const run = z.object({
  id: z.string(),
  name: z.string(),
  system: z.string(),
  model: z.string(),
  dataset_id: z.string().nullable(),
  created_at: z.string(),
  archived_at: z.string().nullable(),
  simulated: z.boolean(),
  metrics: runMetrics,
});

export const traceRow = z.object({
  id: z.string(),
  run_id: z.string(),
  question_id: z.string(),
  sample: z.number().int(),
  db_id: z.string().nullable(),
  difficulty: z.string().nullable(),
  status: z.string(),
  recorded_correct: z.boolean().nullable(),
  ex_outcome: z.string().nullable(),
  step_count: z.number().int(),
  tool_call_count: z.number().int(),
  exploratory_calls: z.number().int(),
  gold_count: z.number().int().nullable(),
  over_exploration: z.number().nullable(),
  extra_table_count: z.number().int().nullable(),
  empty_probe_count: z.number().int().nullable(),
  tokens: z.number().int().nullable(),
  labels: z.array(z.string()),
});

export const scoreRow = z.object({
  seq: z.number().int(),
  name: z.string(),
  kind: z.enum(["numeric", "boolean", "categorical"]),
  value: z.union([z.number(), z.boolean(), z.string()]),
  source: z.string(),
  comment: z.string().nullable(),
  at: z.string(),
});

export const stepSummary = z.object({
  seq: z.number().int(),
  type: z.string(),
  tool: z.string().nullable(),
  tool_role: z.string().nullable(),
  summary: z.string(),
  tables: z.array(z.string()),
  exploratory: z.boolean(),
  error: z.string().nullable(),
  input_tokens: z.number().int().nullable(),
  output_tokens: z.number().int().nullable(),
  duration_ms: z.number().nullable(),
});

export const traceDetail = z.object({
  trace: traceRow.extend({
    question_text: z.string().nullable(),
    evidence: z.string().nullable(),
    gold_sql: z.string().nullable(),
    final_sql: z.string().nullable(),
    directives: z.unknown().nullable(),
    meta: z.unknown().nullable(),
  }),
  steps: z.array(stepSummary),
  scores: z.array(scoreRow),
});

export const stepDetail = z.object({
  seq: z.number().int(),
  type: z.string(),
  tool: z.string().nullable(),
  args: z.string().nullable().describe("as recorded (JSON text)"),
  result: z.string().nullable().describe("the whole result, as recorded"),
  error: z.string().nullable(),
  role: z.string().nullable(),
  content: z.string().nullable(),
  model: z.string().nullable(),
});

export const dataset = z.object({
  id: z.string(),
  name: z.string(),
  format: z.string(),
  questions: z.number().int(),
  databases: z.number().int(),
  runs: z.number().int(),
});

export const question = z.object({
  question_id: z.string(),
  db_id: z.string(),
  text: z.string(),
  evidence: z.string().nullable(),
  gold_sql: z.string().nullable(),
  difficulty: z.string().nullable(),
  gold_tables: z.array(z.string()).nullable(),
});

export const overviewCell = z.record(z.string(), z.union([z.string(), z.number(), z.null()]));

export const setScoresReport = z.object({
  stored: z.number().int(),
  unknown_traces: z.number().int(),
  errors: z.array(z.object({ index: z.number().int(), message: z.string() })),
});

export const pairedScore = z.object({
  name: z.string(),
  kind: z.enum(["numeric", "boolean", "categorical"]),
  pairs: z.number().int(),
  mcnemar: z.object({ b: z.number().int(), c: z.number().int(), p: z.number() }).nullable(),
  difference: interval.nullable(),
});

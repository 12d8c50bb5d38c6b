/** Typed factories for test fixtures. Production code never imports this folder. */
import type { z } from "zod";
import type { TraceUnit } from "@/lib/metrics/run-units";
import type { stepSchema, traceLineSchema } from "@/lib/trace/schema";

type StepIn = z.input<typeof stepSchema>;
type TraceIn = z.input<typeof traceLineSchema>;

export function makeStep(overrides: Partial<StepIn> = {}): StepIn {
  return { type: "tool_call", tool: "list_tables", args: {}, result: "a\nb", duration_ms: 12, ...overrides };
}

let counter = 0;

/** A whole-trace line; each call makes a distinct question unless one is given. */
export function makeTraceLine(overrides: Partial<TraceIn> = {}): TraceIn {
  counter++;
  return {
    run: { name: "test run", system: "No Directives", model: "gpt-test" },
    question: {
      id: `q${counter}`,
      db_id: "concert_singer",
      text: "How many singers are there?",
      gold_sql: "SELECT count(*) FROM singer",
    },
    steps: [
      makeStep({ tool: "list_tables", result: "singer\nconcert\nstadium" }),
      makeStep({
        tool: "describe_table",
        args: { table_name: "singer" },
        usage: { input_tokens: 100, output_tokens: 20 },
      }),
      makeStep({ tool: "submit_final_query", args: { query: "SELECT count(*) FROM singer" }, result: "accepted" }),
    ],
    ...overrides,
  };
}

export function jsonl(...lines: unknown[]): string {
  return lines.map((l) => (typeof l === "string" ? l : JSON.stringify(l))).join("\n") + "\n";
}

/** A trace unit (lib/metrics/run-units) with neutral defaults: nothing recorded beyond what a test sets. */
export function makeTraceUnit(overrides: Partial<TraceUnit> & Pick<TraceUnit, "questionId">): TraceUnit {
  return {
    sample: 0,
    dbId: null,
    difficulty: null,
    correct: null,
    exploratory: 0,
    goldCount: null,
    extraTables: null,
    inputTokens: 0,
    outputTokens: 0,
    cost: null,
    ...overrides,
  };
}

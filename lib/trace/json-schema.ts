/** The JSON Schema of a JSONL line, generated from the zod schema (served at /api/schema/trace). */
import { z } from "zod";
import { stepEventSchema, traceEventSchema, traceLineSchema, TRACE_FORMAT_VERSION } from "./schema";

export function traceJsonSchema(): Record<string, unknown> {
  const opts = { io: "input", unrepresentable: "any" } as const;
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: `Metron canonical trace line, v${TRACE_FORMAT_VERSION}`,
    description:
      "One line of a JSONL trace file: a whole trace, or an event line (kind: trace | step) assembled by trace_id. Unknown fields are kept in meta.",
    oneOf: [
      { title: "whole trace", ...z.toJSONSchema(traceLineSchema, opts) },
      { title: "trace event (header)", ...z.toJSONSchema(traceEventSchema, opts) },
      { title: "step event", ...z.toJSONSchema(stepEventSchema, opts) },
    ],
  };
}

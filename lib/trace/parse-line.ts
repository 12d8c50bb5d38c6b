/** Validate one JSONL line into a typed line shape, with an error that names the field. */
import type { z } from "zod";
import { stepEventSchema, traceEventSchema, traceLineSchema, type Line } from "./schema";

export type ParsedLine = { ok: true; lineNo: number; line: Line } | { ok: false; lineNo: number; error: string };

export function formatZodError(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.length ? issue.path.join(".") : "(line)"}: ${issue.message}`)
    .join("; ");
}

export function parseLine(text: string, lineNo: number): ParsedLine {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    return { ok: false, lineNo, error: `invalid JSON: ${(e as Error).message}` };
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    return { ok: false, lineNo, error: "a line must be a JSON object (a trace, or a trace/step event)" };
  }
  const kind = (json as { kind?: unknown }).kind;
  const schema = kind === "trace" ? traceEventSchema : kind === "step" ? stepEventSchema : traceLineSchema;
  const result = schema.safeParse(json);
  if (!result.success) return { ok: false, lineNo, error: formatZodError(result.error) };
  return { ok: true, lineNo, line: result.data };
}

/** Adapters turn a foreign trace file into canonical whole-trace objects (validated afterwards like any line). */

export interface ForeignStep {
  type: "tool_call" | "message" | "reasoning" | "error";
  tool?: string;
  args?: unknown;
  result?: unknown;
  error?: string;
  role?: string;
  content?: string;
  started_at?: string;
  duration_ms?: number;
  usage?: { input_tokens?: number; output_tokens?: number; reasoning_tokens?: number; cached_input_tokens?: number };
  model?: string;
  meta?: Record<string, unknown>;
}

/** A canonical whole trace as an adapter writes it; `question.id` may be unknown until linking. */
export interface AdaptedTrace {
  run?: { name?: string; system?: string; model?: string; benchmark?: string };
  question: { id?: string; text?: string; db_id?: string; evidence?: string; gold_sql?: string };
  sample?: number;
  steps: ForeignStep[];
  final_sql?: string | null;
  outcome?: { correct?: boolean | null; status?: string; error?: string };
  usage?: {
    input_tokens?: number;
    output_tokens?: number;
    reasoning_tokens?: number;
    cached_input_tokens?: number;
    cost_usd?: number;
  };
  started_at?: string;
  duration_ms?: number;
  meta: Record<string, unknown>;
}

export interface AdapterResult {
  traces: AdaptedTrace[];
  /** Problems in the file that lose something (a line that is not JSON, a result without its call). */
  warnings: { line: number; message: string }[];
}

export interface Adapter {
  format: string;
  label: string;
  /** What the detector looks for, named in the refusal of an unknown file. */
  signature: string;
  adapt(text: string, context?: AdaptContext): AdapterResult;
}

/** What an adapter may use beside the content: the file's name (some harnesses name the model there). */
export interface AdaptContext {
  fileName?: string;
}

export function parseArgs(args: unknown): unknown {
  if (typeof args !== "string") return args;
  try {
    return JSON.parse(args);
  } catch {
    return args;
  }
}

/** Text of a content that may be a string or a list of text blocks. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((b) =>
        typeof b === "string"
          ? b
          : b && typeof b === "object" && "text" in b
            ? String((b as { text: unknown }).text)
            : "",
      )
      .filter(Boolean)
      .join("\n");
  }
  return content == null ? "" : JSON.stringify(content);
}

/** Splits JSONL text into parsed objects, reporting lines that are not JSON. */
export function jsonLines(text: string): {
  lines: { lineNo: number; value: Record<string, unknown> }[];
  warnings: { line: number; message: string }[];
} {
  const lines: { lineNo: number; value: Record<string, unknown> }[] = [];
  const warnings: { line: number; message: string }[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (!raw.trim()) return;
    try {
      const value = JSON.parse(raw);
      if (value && typeof value === "object" && !Array.isArray(value)) lines.push({ lineNo: i + 1, value });
      else warnings.push({ line: i + 1, message: "not a JSON object" });
    } catch (e) {
      warnings.push({ line: i + 1, message: `invalid JSON: ${(e as Error).message}` });
    }
  });
  return { lines, warnings };
}

/** The SQL of a trace's last submission-like tool call (`submit…`, `final…`, `answer…`): its first text argument. */
export function lastSubmittedSql(steps: ForeignStep[]): string | undefined {
  // A submission that failed or was refused (a harness that wanted approval) submitted nothing.
  const submit = [...steps]
    .reverse()
    .find((s) => s.type === "tool_call" && !s.error && /submit|final|answer/i.test(s.tool ?? ""));
  const args = submit?.args;
  if (!args || typeof args !== "object" || Array.isArray(args)) return undefined;
  return Object.values(args as Record<string, unknown>).find((v): v is string => typeof v === "string");
}

/**
 * Adapts each element of a file (a sample, a trajectory, a session, a rollout) on its own (issue 28): one that
 * cannot be read (nesting past the stack, a shape no writer makes) becomes a warning naming its position, and its
 * neighbours are kept.
 */
export function eachAlone<T, R>(
  items: readonly T[],
  label: string,
  warnings: AdapterResult["warnings"],
  adaptOne: (item: T, index: number) => R | R[],
): R[] {
  const out: R[] = [];
  items.forEach((item, i) => {
    try {
      const r = adaptOne(item, i);
      if (Array.isArray(r)) out.push(...r);
      else out.push(r);
    } catch (e) {
      warnings.push({
        line: i + 1,
        message: `${label} ${i + 1} could not be read, the others were: ${(e as Error).message}`,
      });
    }
  });
  return out;
}

type ContentBlock = { type?: unknown; text?: unknown };
const isBlocks = (v: unknown): v is ContentBlock[] =>
  Array.isArray(v) &&
  v.length > 0 &&
  v.every((b) => b !== null && typeof b === "object" && typeof (b as ContentBlock).type === "string");

/**
 * A tool's result as harnesses and SDKs pass it on (issue 29): an MCP `CallToolResult` (`{content: [{type: "text",
 * text}], isError}`, as the AI SDK's `ai.toolCall.result` and Mastra's `gen_ai.tool.call.result` carry it), a list
 * of content blocks (Codex's `[{type: "input_text", text}]`), or their JSON text — unwrapped to the text the model
 * read, with `isError` kept. Anything else is returned as it is.
 */
export function unwrapToolResult(result: unknown): { result: unknown; isError: boolean } {
  let value = result;
  if (typeof value === "string" && /^\s*[[{]/.test(value)) {
    try {
      value = JSON.parse(value);
    } catch {
      return { result, isError: false };
    }
  }
  const wrapped =
    value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  const blocks = wrapped && isBlocks(wrapped.content) ? wrapped.content : isBlocks(value) ? value : null;
  if (!blocks) return { result, isError: false };
  const texts = blocks.filter((b) => typeof b.text === "string").map((b) => b.text as string);
  if (texts.length === 0) return { result, isError: false };
  return { result: texts.join("\n"), isError: wrapped?.isError === true };
}

/** The directives Metron's environment writes into its `list_tables` result (lib/environment/tools.ts). */
const DIRECTIVES_BLOCK = /\n## Directives\n[^\n]*\n([\s\S]*?)(?:\n\n|$)/;

/**
 * The directives a harness's trace carries only as text (issue 29): the "## Directives" block of Metron's own
 * `list_tables` result, as the harness recorded it (OpenCode, Claude Code, Codex, an SDK over OTLP). The tables
 * listed, and the step whose result carried them; the strategy that computed them is not in the text.
 */
export function directivesFromSteps(
  steps: ForeignStep[],
): { strategy: string; irrelevant_tables: string[]; at_step: number } | undefined {
  for (const [i, s] of steps.entries()) {
    if (s.type !== "tool_call" || !/list_tables$/.test(s.tool ?? "") || typeof s.result !== "string") continue;
    const m = DIRECTIVES_BLOCK.exec(s.result);
    if (!m) continue;
    const tables = m[1]
      .split("\n")
      .map((l) => l.trim())
      .filter(Boolean);
    if (tables.length)
      return { strategy: "read from Metron's list_tables result", irrelevant_tables: tables, at_step: i };
  }
  return undefined;
}

/**
 * Foreign trace formats: detection from the file's content, and the adapters. The canonical format is detected
 * here too, so that a caller can route it to the streaming ingest.
 */
import { anthropicMessagesAdapter } from "./anthropic-messages";
import { atifAdapter, isAtif } from "./atif";
import { birdInteractAdapter } from "./bird-interact";
import { isMacSqlLine, macSqlAdapter } from "./mac-sql";
import { claudeCodeAdapter } from "./claude-code";
import { codexAdapter } from "./codex";
import { inspectAdapter } from "./inspect";
import { liveSqlBenchAdapter } from "./livesqlbench";
import { openAiMessagesAdapter } from "./openai-messages";
import { openCodeAdapter } from "./opencode";
import { isOtlp, otlpAdapter } from "./otlp";
import { questionOf } from "./question-text";
import { isSpiderAgentResult, spiderAgentReactAdapter } from "./spider-agent-react";
import type { AdaptContext, Adapter, AdapterResult } from "./types";

import { FORMATS } from "./formats";

export { FORMATS };
export const ADAPTERS: Adapter[] = [
  openAiMessagesAdapter,
  anthropicMessagesAdapter,
  openCodeAdapter,
  claudeCodeAdapter,
  codexAdapter,
  liveSqlBenchAdapter,
  inspectAdapter,
  atifAdapter,
  otlpAdapter,
  spiderAgentReactAdapter,
  birdInteractAdapter,
  macSqlAdapter,
];

const CLAUDE_TYPES = new Set(["user", "assistant", "system", "summary"]);
const CODEX_TYPES = new Set(["session_meta", "response_item", "event_msg", "turn_context", "compacted"]);

export class UnknownFormatError extends Error {
  /** `detail` then, unless `list` is false, every format looked for (a file that is no known thing). */
  constructor(detail: string, list = true) {
    super(
      list
        ? `${detail}. Looked for: Metron's canonical JSONL (lines with "question" and "steps", or "kind": "trace"/"step"); ${ADAPTERS.map((a) => `${a.label}: ${a.signature}`).join("; ")}. Supported formats: ${FORMATS.join(", ")}.`
        : detail,
    );
  }
}

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => Boolean(v) && typeof v === "object" && !Array.isArray(v);

function hasBlocks(messages: unknown[]): boolean {
  return messages.some(
    (m) =>
      isObj(m) &&
      Array.isArray(m.content) &&
      (m.content as unknown[]).some(
        (b) => isObj(b) && ["tool_use", "tool_result", "thinking"].includes(b.type as string),
      ),
  );
}

function detectDocument(data: unknown): string | null {
  if (isObj(data)) {
    if (
      Array.isArray(data.results) &&
      (data.results as unknown[]).some((r) => isObj(r) && Array.isArray(r.tool_trajectory))
    )
      return "livesqlbench";
    if (
      isObj(data.info) &&
      Array.isArray(data.messages) &&
      (data.messages as unknown[]).every((m) => isObj(m) && Array.isArray(m.parts))
    )
      return "opencode";
    if ("question" in data && ("steps" in data || "final_sql" in data)) return "canonical";
    if (isAtif(data)) return "atif";
    if (isOtlp(data)) return "otlp";
    if (isSpiderAgentResult(data)) return "spider-agent-react";
    if (isObj(data.eval) && ("samples" in data || "plan" in data || "results" in data)) return "inspect";
    if (Array.isArray(data.messages)) return hasBlocks(data.messages) ? "anthropic-messages" : "openai-messages";
    return null;
  }
  if (Array.isArray(data) && data.length > 0) {
    if (data.every(isAtif)) return "atif";
    if (data.every((d) => isObj(d) && Array.isArray(d.conversation))) return "openai-messages";
    if (data.every((d) => isObj(d) && typeof d.role === "string"))
      return hasBlocks(data) ? "anthropic-messages" : "openai-messages";
  }
  return null;
}

/** Every line of a JSON-lines text that is a JSON object (the conversation may start after the first 20). */
function lineObjects(text: string): Json[] {
  const out: Json[] = [];
  for (const l of text.split(/\r?\n/)) {
    if (!l.trim().startsWith("{")) continue;
    try {
      const o = JSON.parse(l) as unknown;
      if (isObj(o)) out.push(o);
    } catch {
      // a broken line: the adapter reports it
    }
    if (out.length >= 500) break;
  }
  return out;
}

function detectLines(text: string): string | null {
  const first = text
    .split(/\r?\n/)
    .filter((l) => l.trim())
    .slice(0, 20)
    .map((l) => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        return null;
      }
    })
    .filter(isObj);
  if (first.length === 0) return null;
  if (first.some((o) => "question" in o || o.kind === "trace" || o.kind === "step")) return "canonical";
  if (first.every((o) => Array.isArray(o.resourceSpans))) return "otlp";
  // Most lines, not all: real logs carry the odd broken line, which the adapter then reports.
  const share = (test: (o: Json) => boolean) => first.filter(test).length / first.length;
  if (share((o) => Array.isArray(o.interaction_history) && Boolean(o.original_data)) >= 0.6) return "bird-interact";
  if (share(isMacSqlLine) >= 0.6) return "mac-sql";
  if (share((o) => CODEX_TYPES.has(o.type as string) && "payload" in o) >= 0.6) return "codex";
  // Claude Code by structure, not by the share of line types it is known to write: each release adds new ones
  // (2.1.x: queue-operation, attachment, api-request, cost-state, …), but its lines carry a sessionId, and the
  // conversation is user/assistant lines with a message (issue 29).
  const conversation = (o: Json) => (o.type === "user" || o.type === "assistant") && isObj(o.message);
  if (
    (share((o) => CLAUDE_TYPES.has(o.type as string)) >= 0.6 &&
      first.some((o) => "message" in o && ("sessionId" in o || "uuid" in o))) ||
    (share((o) => typeof o.sessionId === "string") >= 0.6 &&
      lineObjects(text).some((o) => conversation(o) && typeof o.sessionId === "string"))
  )
    return "claude-code";
  return null;
}

/**
 * A benchmark's own file uploaded as traces (a researcher's slip: BIRD's or Spider's questions, or a tables.json),
 * described so that the error can say where it goes; null for anything else.
 */
function datasetFileOf(doc: unknown): string | null {
  if (!Array.isArray(doc) || doc.length === 0) return null;
  const sample = doc.slice(0, 20);
  const all = (test: (o: Json) => boolean) => sample.every((o) => isObj(o) && typeof o.db_id === "string" && test(o));
  const n = (one: string, many: string) => `${doc.length} ${doc.length === 1 ? one : many}`;
  if (all((o) => Array.isArray(o.table_names_original) || Array.isArray(o.table_names)))
    return `a benchmark's tables.json (the schemas of ${n("database", "databases")})`;
  if (all((o) => typeof o.question === "string" && (typeof o.SQL === "string" || typeof o.query === "string")))
    return `a benchmark's questions file (${n("question", "questions")} with gold SQL)`;
  return null;
}

/** The format of a whole file's text. JSON documents are tried first, then JSON lines. */
export function detectFormat(text: string): string {
  const body = text.replace(/^\uFEFF/, "").trim();
  if (!body) throw new UnknownFormatError("the file is empty");
  if (body.startsWith("{") || body.startsWith("[")) {
    let doc: unknown;
    try {
      doc = JSON.parse(body);
    } catch {
      // not one JSON document: maybe JSON lines
    }
    if (doc !== undefined) {
      const format = detectDocument(doc);
      if (format) return format;
      const dataset = datasetFileOf(doc);
      if (dataset)
        throw new UnknownFormatError(
          `the file is ${dataset}, not traces: import it as a dataset (the Datasets page's "Import a dataset", or ` +
            "metron dataset import --questions F with --tables, --databases or --ddl; docs/cli.md), then upload the " +
            "agent's traces with that dataset chosen",
          false,
        );
    }
  }
  const format = detectLines(body);
  if (format) return format;
  throw new UnknownFormatError("the file is in no format Metron knows");
}

/**
 * Whether the first bytes of a file read as canonical JSONL (so it can be streamed without reading it whole): the
 * first complete lines that parse are canonical. A broken first line does not make the file foreign; the ingest
 * reports it by number.
 */
export function looksCanonical(head: string): boolean {
  const lines = head.replace(/^\uFEFF/, "").split(/\r?\n/);
  lines.pop(); // possibly cut in the middle
  return detectLines(lines.join("\n")) === "canonical";
}

/** Formats read line by line, where a line that is not valid UTF-8 can be skipped alone. */
export const LINE_FORMATS = new Set(["canonical", "claude-code", "codex"]);

export function adapt(text: string, format: string, context: AdaptContext = {}): AdapterResult {
  const adapter = ADAPTERS.find((a) => a.format === format);
  if (!adapter) throw new UnknownFormatError(`no adapter for the format "${format}"`);
  let result: AdapterResult;
  try {
    result = adapter.adapt(text, context);
  } catch (e) {
    throw new UnknownFormatError(`the file does not read as ${adapter.label} (${(e as Error).message})`);
  }
  labelQuestions(result.traces);
  return result;
}

/**
 * The heading of a question page is the question, not the harness's instructions around it: a labelled question
 * ("Question: …") in the first user message becomes the trace's question text. For files (`adapt`) and for traces
 * the OTLP receiver assembles live alike (issue 29: the same trace either way).
 */
export function labelQuestions(traces: AdapterResult["traces"]): void {
  for (const t of traces) {
    if (!t.question.text) continue;
    const { question, fromLabel } = questionOf(t.question.text);
    if (fromLabel) {
      t.meta = {
        ...t.meta,
        question_from_prompt:
          "the question was taken from the labelled part of the first user message (the whole message is the first step)",
      };
      t.question.text = question;
    }
  }
}

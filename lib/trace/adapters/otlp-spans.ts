/**
 * OTLP spans read (lib/trace/adapters/otlp.ts assembles them into traces): flattening OTLP/JSON into plain spans, the
 * group a span belongs to, and what one span says under each convention it may follow (GenAI semantic conventions,
 * OpenInference, the AI SDK, OpenLLMetry) — a tool call, a model turn, its usage and model.
 */
import { SemanticConventions as OI } from "@arizeai/openinference-semantic-conventions";
import { createHash } from "node:crypto";
import {
  ATTR_GEN_AI_CONVERSATION_ID,
  ATTR_GEN_AI_INPUT_MESSAGES,
  ATTR_GEN_AI_OPERATION_NAME,
  ATTR_GEN_AI_OUTPUT_MESSAGES,
  ATTR_GEN_AI_REQUEST_MODEL,
  ATTR_GEN_AI_RESPONSE_MODEL,
  ATTR_GEN_AI_TOOL_CALL_ARGUMENTS,
  ATTR_GEN_AI_TOOL_CALL_ID,
  ATTR_GEN_AI_TOOL_CALL_RESULT,
  ATTR_GEN_AI_TOOL_NAME,
  ATTR_GEN_AI_USAGE_INPUT_TOKENS,
  ATTR_GEN_AI_USAGE_OUTPUT_TOKENS,
  ATTR_SESSION_ID,
} from "@opentelemetry/semantic-conventions/incubating";
import { ATTR_ERROR_TYPE, ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import { textOf, unwrapToolResult, parseArgs, type ForeignStep } from "./types";

export type Json = Record<string, unknown>;
export const isObj = (v: unknown): v is Json => Boolean(v) && typeof v === "object" && !Array.isArray(v);

/** A span, flattened: attributes as plain values, times in nanoseconds. */
export interface FlatSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | null;
  name: string;
  startNs: bigint;
  endNs: bigint;
  attrs: Record<string, unknown>;
  resource: Record<string, unknown>;
  events: { name: string; timeNs: bigint; attrs: Record<string, unknown> }[];
  status: { code: number; message?: string };
}

/** An OTLP AnyValue as a plain value. */
export function anyValue(v: unknown): unknown {
  if (!isObj(v)) return v;
  if ("stringValue" in v) return v.stringValue;
  if ("boolValue" in v) return v.boolValue;
  if ("intValue" in v) return Number(v.intValue);
  if ("doubleValue" in v) return Number(v.doubleValue);
  if ("arrayValue" in v) return ((v.arrayValue as Json)?.values as unknown[] | undefined)?.map(anyValue) ?? [];
  if ("kvlistValue" in v) return attributes((v.kvlistValue as Json)?.values);
  if ("bytesValue" in v) return v.bytesValue;
  return undefined;
}

export function attributes(list: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of Array.isArray(list) ? list : [])
    if (isObj(kv) && typeof kv.key === "string") out[kv.key] = anyValue(kv.value);
  return out;
}

export const ns = (v: unknown) => {
  try {
    return BigInt(typeof v === "string" || typeof v === "number" ? v : 0);
  } catch {
    return BigInt(0);
  }
};
export const id = (v: unknown) => (typeof v === "string" ? v.toLowerCase() : "");

export function flattenSpans(doc: unknown): FlatSpan[] {
  const out: FlatSpan[] = [];
  for (const rs of isObj(doc) && Array.isArray(doc.resourceSpans) ? doc.resourceSpans : []) {
    if (!isObj(rs)) continue;
    const resource = attributes(isObj(rs.resource) ? rs.resource.attributes : undefined);
    for (const ss of Array.isArray(rs.scopeSpans)
      ? rs.scopeSpans
      : Array.isArray(rs.instrumentationLibrarySpans)
        ? rs.instrumentationLibrarySpans
        : []) {
      for (const s of isObj(ss) && Array.isArray(ss.spans) ? ss.spans : []) {
        if (!isObj(s) || !s.spanId) continue;
        const status = isObj(s.status) ? s.status : {};
        out.push({
          traceId: id(s.traceId),
          spanId: id(s.spanId),
          parentSpanId: id(s.parentSpanId) || null,
          name: String(s.name ?? ""),
          startNs: ns(s.startTimeUnixNano),
          endNs: ns(s.endTimeUnixNano),
          attrs: attributes(s.attributes),
          resource,
          events: (Array.isArray(s.events) ? s.events : []).filter(isObj).map((e) => ({
            name: String(e.name ?? ""),
            timeNs: ns(e.timeUnixNano),
            attrs: attributes(e.attributes),
          })),
          status: {
            code: Number(status.code ?? 0),
            ...(typeof status.message === "string" && status.message ? { message: status.message } : {}),
          },
        });
      }
    }
  }
  return out;
}

/**
 * The trace a span belongs to: its conversation, its session, else its OTel trace. A model call that is a root of
 * its own (the OpenAI Agents SDK instrumented by OpenInference: its agent loop is not OpenTelemetry, so each call
 * starts a new OTel trace) belongs with the other calls of its process that carry the same system and first user
 * message: the calls of one agent session, which then close as a conversation does, once quiet (issue 29).
 */
export function groupKeyOf(span: FlatSpan): string {
  const a = span.attrs;
  const conversation =
    a[ATTR_GEN_AI_CONVERSATION_ID] ?? a[ATTR_SESSION_ID] ?? a[OI.SESSION_ID] ?? span.resource[ATTR_SESSION_ID];
  if (typeof conversation === "string" && conversation) return `conversation:${conversation}`;
  if (!span.parentSpanId && isInference(span)) {
    const opening = openingOf(span);
    if (opening) return `calls:${opening}`;
  }
  return `trace:${span.traceId}`;
}

/** What opens a model call's conversation (its process, system message, first user message), hashed; or none. */
export function openingOf(span: FlatSpan): string | undefined {
  const user = firstUserMessage(span);
  if (!user) return undefined;
  const system = flattenedMessages(span.attrs, OI.LLM_INPUT_MESSAGES).find((m) => m.role === "system")?.content;
  const process = [ATTR_SERVICE_NAME, "service.instance.id", "process.pid", "host.name"].map((k) => span.resource[k]);
  return createHash("sha256")
    .update(JSON.stringify([process, system ?? null, user]))
    .digest("hex")
    .slice(0, 24);
}

export const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);
export const num = (v: unknown) =>
  typeof v === "number" && Number.isFinite(v)
    ? v
    : typeof v === "string" && v.trim() && Number.isFinite(Number(v))
      ? Number(v)
      : undefined;
export const iso = (n: bigint) => new Date(Number(n / BigInt(1_000_000))).toISOString();
export const msBetween = (a: bigint, b: bigint) => (b > a ? Number((b - a) / BigInt(1000)) / 1000 : 0);
export const json = (v: unknown) => (typeof v === "string" ? parseArgs(v) : v);

/** An attribute by a `metron.*` name, on the span, the resource, or as the AI SDK's telemetry metadata. */
export function metron(spans: FlatSpan[], key: string): unknown {
  for (const s of spans)
    for (const bag of [s.attrs, s.resource]) {
      // Also as OpenLLMetry's association properties (`traceloop.association.properties.metron.*`, issue 29).
      const v =
        bag[`metron.${key}`] ??
        bag[`ai.telemetry.metadata.metron.${key}`] ??
        bag[`traceloop.association.properties.metron.${key}`];
      if (v !== undefined && v !== "") return v;
    }
  return undefined;
}

export const isTool = (s: FlatSpan) =>
  s.attrs[ATTR_GEN_AI_OPERATION_NAME] === "execute_tool" ||
  s.attrs["traceloop.span.kind"] === "tool" ||
  s.attrs[ATTR_GEN_AI_TOOL_NAME] !== undefined ||
  s.attrs[OI.OPENINFERENCE_SPAN_KIND] === "TOOL" ||
  s.attrs["ai.toolCall.name"] !== undefined;

export const INFERENCE_OPS = new Set(["chat", "generate_content", "text_completion"]);
export const isInference = (s: FlatSpan) =>
  INFERENCE_OPS.has(String(s.attrs[ATTR_GEN_AI_OPERATION_NAME])) ||
  s.attrs[OI.OPENINFERENCE_SPAN_KIND] === "LLM" ||
  /^ai\.(generateText|streamText|generateObject|streamObject)\.do(Generate|Stream)$/.test(s.name);

/** OpenInference's flattened messages (`llm.output_messages.0.message.content`, …) as objects. */
export function flattenedMessages(attrs: Record<string, unknown>, prefix: string): Json[] {
  const messages: Json[] = [];
  const re = new RegExp(`^${prefix.replace(/\./g, "\\.")}\\.(\\d+)\\.message\\.(.+)$`);
  for (const [k, v] of Object.entries(attrs)) {
    const m = k.match(re);
    if (!m) continue;
    const msg = (messages[Number(m[1])] ??= {});
    const field = m[2];
    const call = field.match(/^tool_calls\.(\d+)\.tool_call\.(?:function\.)?(name|arguments|id)$/);
    if (call) {
      const calls = (msg.tool_calls as Json[] | undefined) ?? ((msg.tool_calls = []) as Json[]);
      (calls[Number(call[1])] ??= {})[call[2]] = v;
    } else msg[field] = v;
  }
  return messages.filter(Boolean);
}

export interface Turn {
  text: string;
  reasoning: string;
  calls: { name: string; args: unknown; id?: string }[];
}

/** What an inference span says the model answered, in any of the three conventions. */
export function outputOf(s: FlatSpan): Turn {
  const a = s.attrs;
  const turn: Turn = { text: "", reasoning: "", calls: [] };
  const genai = json(a[ATTR_GEN_AI_OUTPUT_MESSAGES]);
  if (Array.isArray(genai)) {
    for (const m of genai.filter(isObj))
      for (const p of Array.isArray(m.parts) ? m.parts.filter(isObj) : []) {
        if (p.type === "text") turn.text += String(p.content ?? "");
        else if (p.type === "reasoning") turn.reasoning += String(p.content ?? "");
        else if (p.type === "tool_call")
          turn.calls.push({ name: String(p.name ?? "unknown"), args: json(p.arguments), id: str(p.id) });
      }
    return turn;
  }
  const oi = flattenedMessages(a, OI.LLM_OUTPUT_MESSAGES);
  if (oi.length) {
    for (const m of oi) {
      turn.text += String(m.content ?? "");
      for (const c of (m.tool_calls as Json[] | undefined) ?? [])
        turn.calls.push({ name: String(c.name ?? "unknown"), args: json(c.arguments), id: str(c.id) });
    }
    return turn;
  }
  if (a["ai.response.text"] !== undefined || a["ai.response.toolCalls"] !== undefined) {
    turn.text = String(a["ai.response.text"] ?? "");
    turn.reasoning = String(a["ai.response.reasoning"] ?? "");
    const calls = json(a["ai.response.toolCalls"]);
    for (const c of Array.isArray(calls) ? calls.filter(isObj) : [])
      turn.calls.push({ name: String(c.toolName ?? "unknown"), args: json(c.input ?? c.args), id: str(c.toolCallId) });
    return turn;
  }
  // The older conventions: one event per message.
  for (const e of s.events) {
    if (e.name !== "gen_ai.choice" && e.name !== "gen_ai.assistant.message") continue;
    const m = isObj(json(e.attrs.message)) ? (json(e.attrs.message) as Json) : e.attrs;
    turn.text += String(m.content ?? "");
  }
  return turn;
}

/** The first user message an inference span was sent: the question, for a trace that does not name it. */
/**
 * The prompt as agent frameworks record it on their own spans when the model calls carry no input messages
 * (issue 29): Mastra's `mastra.<kind>.input` (as 1.71 writes `mastra.agent_run.input`), and OpenInference's
 * `input.value` on an AGENT or CHAIN span — a string, or messages whose first user message is taken.
 */
export function frameworkInput(s: FlatSpan): string | undefined {
  const kind = s.attrs[OI.OPENINFERENCE_SPAN_KIND];
  const raw =
    Object.entries(s.attrs).find(([k]) => /^mastra\.[a-z_]+\.input$/.test(k))?.[1] ??
    (kind === "AGENT" || kind === "CHAIN" ? s.attrs[OI.INPUT_VALUE] : undefined);
  if (raw === undefined) return undefined;
  const value = json(raw);
  if (typeof value === "string") return value.trim() || undefined;
  const messages = Array.isArray(value) ? value : isObj(value) && Array.isArray(value.messages) ? value.messages : null;
  const user = messages?.filter(isObj).find((m) => m.role === "user");
  if (user) return textOf(user.content) || undefined;
  if (isObj(value) && typeof value.input === "string") return value.input;
  return undefined;
}

export function firstUserMessage(s: FlatSpan): string | undefined {
  const a = s.attrs;
  const genai = json(a[ATTR_GEN_AI_INPUT_MESSAGES]);
  if (Array.isArray(genai)) {
    const user = genai.filter(isObj).find((m) => m.role === "user");
    const parts = user && Array.isArray(user.parts) ? user.parts.filter(isObj) : [];
    const text = parts
      .filter((p) => p.type === "text")
      .map((p) => String(p.content ?? ""))
      .join("\n");
    if (text) return text;
  }
  const oi = flattenedMessages(a, OI.LLM_INPUT_MESSAGES).find((m) => m.role === "user");
  if (oi && typeof oi.content === "string") return oi.content;
  const sdk = json(a["ai.prompt.messages"]);
  if (Array.isArray(sdk)) {
    const user = sdk.filter(isObj).find((m) => m.role === "user");
    if (user) {
      const c = user.content;
      if (typeof c === "string") return c;
      if (Array.isArray(c))
        return c
          .filter(isObj)
          .map((p) => String(p.text ?? ""))
          .join("\n");
    }
  }
  const event = s.events.find((e) => e.name === "gen_ai.user.message");
  return event ? str(event.attrs.content) : undefined;
}

export function usageOf(s: FlatSpan): ForeignStep["usage"] | undefined {
  const a = s.attrs;
  const input =
    num(a[ATTR_GEN_AI_USAGE_INPUT_TOKENS]) ??
    num(a[OI.LLM_TOKEN_COUNT_PROMPT]) ??
    num(a["ai.usage.inputTokens"]) ??
    num(a["ai.usage.promptTokens"]);
  const output =
    num(a[ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]) ??
    num(a[OI.LLM_TOKEN_COUNT_COMPLETION]) ??
    num(a["ai.usage.outputTokens"]) ??
    num(a["ai.usage.completionTokens"]);
  // Cache reads, in each convention the SDKs send (issue 29): GenAI, OpenLLMetry's, OpenInference's, the AI SDK's.
  const cached =
    num(a["gen_ai.usage.cache_read.input_tokens"]) ??
    num(a["gen_ai.usage.cache_read_input_tokens"]) ??
    num(a[OI.LLM_TOKEN_COUNT_PROMPT_DETAILS_CACHE_READ]) ??
    num(a["ai.usage.inputTokenDetails.cacheReadTokens"]) ??
    num(a["ai.usage.cachedInputTokens"]);
  if (input === undefined && output === undefined) return undefined;
  return {
    input_tokens: input ?? 0,
    output_tokens: output ?? 0,
    ...(cached !== undefined ? { cached_input_tokens: cached } : {}),
  };
}

export const modelOf = (s: FlatSpan) =>
  str(s.attrs[ATTR_GEN_AI_RESPONSE_MODEL]) ??
  str(s.attrs[ATTR_GEN_AI_REQUEST_MODEL]) ??
  str(s.attrs[OI.LLM_MODEL_NAME]) ??
  str(s.attrs["ai.model.id"]);

/** What the OpenAI Agents SDK sends the model in place of a tool that threw or timed out (agents-core's tool.ts). */
export const SDK_TOOL_ERROR = /^(An error occurred while running the tool\.|Tool '[^']+' timed out after \d+ms\.)/;

export const NOT_RECORDED =
  "not recorded: OpenTelemetry records tool arguments and results only when the instrumentation opts in";

/**
 * OpenLLMetry's tool span (`traceloop.span.kind` tool): `traceloop.entity.input|output`; its MCP instrumentation
 * writes `{tool_name, arguments}` and `{result, is_error}` there (seen in the harness suite).
 */
export function traceloopTool(a: Record<string, unknown>): { args?: unknown; result?: unknown; isError?: boolean } {
  if (a["traceloop.span.kind"] !== "tool") return {};
  const input = json(a["traceloop.entity.input"]);
  const output = json(a["traceloop.entity.output"]);
  const mcpIn = isObj(input) && "tool_name" in input && "arguments" in input;
  const mcpOut = isObj(output) && "result" in output;
  return {
    args: mcpIn ? (input as Json).arguments : input,
    result: mcpOut ? (output as Json).result : output,
    ...(mcpOut && (output as Json).is_error === true ? { isError: true } : {}),
  };
}

export function toolStep(s: FlatSpan): ForeignStep {
  const a = s.attrs;
  const traceloop = traceloopTool(a);
  const name =
    str(a[ATTR_GEN_AI_TOOL_NAME]) ??
    str(a[OI.TOOL_NAME]) ??
    str(a["ai.toolCall.name"]) ??
    str(a["traceloop.entity.name"]) ??
    s.name.replace(/^execute_tool\s+/, "").replace(a["traceloop.span.kind"] === "tool" ? /\.tool$/ : /$^/, "");
  const args =
    a[ATTR_GEN_AI_TOOL_CALL_ARGUMENTS] ??
    a[OI.TOOL_PARAMETERS] ??
    a["ai.toolCall.args"] ??
    traceloop.args ??
    (a[OI.OPENINFERENCE_SPAN_KIND] === "TOOL" ? a[OI.INPUT_VALUE] : undefined);
  // An MCP tool's result arrives as its CallToolResult: the text the model read, and whether it was an error.
  const unwrapped = unwrapToolResult(
    a[ATTR_GEN_AI_TOOL_CALL_RESULT] ??
      a["ai.toolCall.result"] ??
      traceloop.result ??
      (a[OI.OPENINFERENCE_SPAN_KIND] === "TOOL" ? a[OI.OUTPUT_VALUE] : undefined),
  );
  if (traceloop.isError) unwrapped.isError = true;
  const result = unwrapped.result;
  const error =
    s.status.code === 2
      ? (s.status.message ?? str(a[ATTR_ERROR_TYPE]) ?? "error")
      : unwrapped.isError
        ? String(result)
        : undefined;
  const recorded = args !== undefined || result !== undefined;
  return {
    type: "tool_call",
    tool: name,
    args: args === undefined ? {} : json(args),
    ...(result !== undefined ? { result: typeof result === "string" ? result : JSON.stringify(result) } : {}),
    ...(error ? { error } : {}),
    started_at: iso(s.startNs),
    duration_ms: msBetween(s.startNs, s.endNs),
    meta: {
      span_id: s.spanId,
      ...((str(a[ATTR_GEN_AI_TOOL_CALL_ID]) ?? str(a["ai.toolCall.id"]))
        ? { tool_call_id: str(a[ATTR_GEN_AI_TOOL_CALL_ID]) ?? str(a["ai.toolCall.id"]) }
        : {}),
      ...(recorded ? {} : { content: NOT_RECORDED }),
    },
  };
}

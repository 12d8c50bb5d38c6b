/**
 * OpenTelemetry traces (OTLP/JSON: `{resourceSpans: [{resource, scopeSpans: [{spans}]}]}`, one document or one per
 * line as an exporter's file output writes them) as Metron traces. Spans are grouped into one agent trace by
 * `gen_ai.conversation.id`, else `session.id`, else the OTel trace id. Three conventions are read:
 * - GenAI semantic conventions: `execute_tool` spans (`gen_ai.tool.name`, `gen_ai.tool.call.arguments|result`),
 *   inference spans (`gen_ai.input.messages`, `gen_ai.output.messages`, `gen_ai.usage.*`, the model), and the older
 *   per-message events (`gen_ai.user.message`, `gen_ai.choice`, …);
 * - OpenInference (`openinference.span.kind` TOOL / LLM, `tool.name`, `tool.parameters`, `input.value`,
 *   `output.value`, `llm.token_count.*`, flattened `llm.input_messages.*` / `llm.output_messages.*`);
 * - the AI SDK's telemetry (`ai.toolCall` spans, `ai.*.doGenerate` spans with `ai.response.*` and `ai.usage.*`).
 * Tool arguments and results are opt-in in OTel: a tool span without them is a step whose content is "not recorded".
 * Identity comes from `metron.*` attributes (resource or span; also as the AI SDK's `ai.telemetry.metadata.metron.*`),
 * then the standard ones (`service.name`, `gen_ai.agent.name`, the model of the inference spans).
 */
import { SemanticConventions as OI } from "@arizeai/openinference-semantic-conventions";
import { ATTR_GEN_AI_AGENT_NAME } from "@opentelemetry/semantic-conventions/incubating";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import {
  eachAlone,
  unwrapToolResult,
  type Adapter,
  type AdaptedTrace,
  type AdapterResult,
  type ForeignStep,
  lastSubmittedSql,
} from "./types";
import {
  isObj,
  type FlatSpan,
  flattenSpans,
  groupKeyOf,
  str,
  num,
  iso,
  msBetween,
  metron,
  isTool,
  isInference,
  flattenedMessages,
  outputOf,
  frameworkInput,
  firstUserMessage,
  usageOf,
  modelOf,
  SDK_TOOL_ERROR,
  NOT_RECORDED,
  toolStep,
} from "./otlp-spans";

export { flattenSpans, groupKeyOf, type FlatSpan } from "./otlp-spans";

/** One group's spans as one trace. */
export function assembleTrace(spans: FlatSpan[]): AdaptedTrace {
  const sorted = [...spans].sort((x, y) => (x.startNs < y.startNs ? -1 : x.startNs > y.startNs ? 1 : 0));
  const ids = new Set(sorted.map((s) => s.spanId));
  // An inference span that wraps other inference spans (the AI SDK's ai.generateText around its doGenerate calls)
  // would count their tokens twice: only the innermost ones are steps.
  const parentsOfInference = new Set(sorted.filter(isInference).map((s) => s.parentSpanId));
  const inference = sorted.filter((s) => isInference(s) && !(parentsOfInference.has(s.spanId) && !isTool(s)));
  const tools = sorted.filter(isTool);
  const steps: ForeignStep[] = [];
  const question =
    str(metron(sorted, "question.text")) ??
    inference.map(firstUserMessage).find(Boolean) ??
    sorted.map(frameworkInput).find(Boolean);
  // Tool messages the model calls were sent (role tool, by tool_call_id), for calls no tool span recorded.
  const toolMessages = new Map<string, unknown>();
  for (const s of inference)
    for (const m of flattenedMessages(s.attrs, OI.LLM_INPUT_MESSAGES))
      if (m.role === "tool" && typeof m.tool_call_id === "string" && m.content !== undefined)
        toolMessages.set(m.tool_call_id, m.content);
  if (question) steps.push({ type: "message", role: "user", content: question, started_at: iso(sorted[0].startNs) });
  // Steps in time order: each inference span's turn, and each tool span (or, when no tool span was recorded, the
  // tool calls the model asked for, their results unknown).
  const events = [
    ...inference.map((s) => ({ s, kind: "inference" as const })),
    ...tools.map((s) => ({ s, kind: "tool" as const })),
  ].sort((x, y) => (x.s.startNs < y.s.startNs ? -1 : x.s.startNs > y.s.startNs ? 1 : 0));
  for (const { s, kind } of events) {
    if (kind === "tool") {
      steps.push(toolStep(s));
      continue;
    }
    const turn = outputOf(s);
    const at = { started_at: iso(s.startNs), duration_ms: msBetween(s.startNs, s.endNs) };
    if (turn.reasoning) steps.push({ type: "reasoning", content: turn.reasoning, ...at });
    const error = s.status.code === 2 ? (s.status.message ?? "error") : undefined;
    steps.push({
      type: error ? "error" : "message",
      role: "assistant",
      content: turn.text || error || "",
      ...(error ? { error } : {}),
      ...at,
      ...(usageOf(s) ? { usage: usageOf(s) } : {}),
      ...(modelOf(s) ? { model: modelOf(s) } : {}),
      meta: { span_id: s.spanId },
    });
    if (tools.length === 0)
      for (const c of turn.calls) {
        // No tool span: the result is the tool message a later model call was sent (OpenInference's input messages).
        const sent = c.id !== undefined ? toolMessages.get(c.id) : undefined;
        const unwrapped = sent !== undefined ? unwrapToolResult(sent) : undefined;
        if (unwrapped && typeof unwrapped.result === "string" && SDK_TOOL_ERROR.test(unwrapped.result))
          unwrapped.isError = true;
        steps.push({
          type: "tool_call",
          tool: c.name,
          args: c.args ?? {},
          ...(unwrapped
            ? { result: typeof unwrapped.result === "string" ? unwrapped.result : JSON.stringify(unwrapped.result) }
            : {}),
          ...(unwrapped?.isError ? { error: String(unwrapped.result) } : {}),
          meta: {
            ...(unwrapped ? { result_source: "the next model call's tool message" } : { content: NOT_RECORDED }),
            ...(c.id ? { tool_call_id: c.id } : {}),
          },
        });
      }
  }
  const root = sorted.find((s) => !s.parentSpanId || !ids.has(s.parentSpanId)) ?? sorted[0];
  const model = str(metron(sorted, "run.model")) ?? inference.map(modelOf).find(Boolean);
  const system =
    str(metron(sorted, "run.system")) ??
    str(metron(sorted, "system")) ??
    sorted.map((s) => str(s.attrs[ATTR_GEN_AI_AGENT_NAME])).find(Boolean);
  const name = str(metron(sorted, "run.name")) ?? str(metron(sorted, "run")) ?? str(root.resource[ATTR_SERVICE_NAME]);
  const benchmark = str(metron(sorted, "run.benchmark")) ?? str(metron(sorted, "benchmark"));
  const correct = metron(sorted, "outcome.correct");
  const submitted = lastSubmittedSql(steps);
  const start = sorted.reduce((m, s) => (s.startNs < m ? s.startNs : m), sorted[0].startNs);
  const end = sorted.reduce((m, s) => (s.endNs > m ? s.endNs : m), sorted[0].endNs);
  const sample = num(metron(sorted, "sample"));
  return {
    run: {
      ...(name ? { name } : {}),
      ...(system ? { system } : {}),
      ...(model ? { model } : {}),
      ...(benchmark ? { benchmark } : {}),
    },
    question: {
      ...(metron(sorted, "question.id") !== undefined ? { id: String(metron(sorted, "question.id")) } : {}),
      ...(question ? { text: question } : {}),
      ...(str(metron(sorted, "question.db_id")) ? { db_id: str(metron(sorted, "question.db_id")) } : {}),
      ...(str(metron(sorted, "question.gold_sql")) ? { gold_sql: str(metron(sorted, "question.gold_sql")) } : {}),
    },
    ...(sample !== undefined ? { sample } : {}),
    steps,
    final_sql: str(metron(sorted, "final_sql")) ?? submitted ?? null,
    ...(typeof correct === "boolean" || correct === "true" || correct === "false"
      ? { outcome: { correct: correct === true || correct === "true" } }
      : {}),
    started_at: iso(start),
    duration_ms: msBetween(start, end),
    meta: {
      source_format: "otlp",
      otel: { trace_ids: [...new Set(sorted.map((s) => s.traceId))], group: groupKeyOf(root), spans: sorted.length },
    },
  };
}

const PROCESS = [ATTR_SERVICE_NAME, "service.instance.id", "process.pid", "host.name"];

/** What ties an OpenLLMetry span to its workflow's session: the process, the workflow, the association properties. */
function workflowTie(s: FlatSpan): string | undefined {
  const name = s.attrs["traceloop.workflow.name"];
  if (typeof name !== "string") return undefined;
  const props = Object.entries(s.attrs)
    .filter(([k]) => k.startsWith("traceloop.association.properties."))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([PROCESS.map((k) => s.resource[k] ?? null), name, props]);
}

/** A group's OpenLLMetry workflow root span, if it has one. */
export const workflowRoot = (spans: FlatSpan[]) => spans.find((s) => !s.parentSpanId && workflowTie(s) !== undefined);

/**
 * Whether `span`, of another OTel trace, belongs to the session of the workflow `root`. OpenLLMetry's MCP
 * instrumentation parents each MCP call under an `mcp.client.session` span it starts when the client connects: a
 * client connected outside the workflow puts the workflow's calls in another OTel trace, though they carry the
 * workflow's name and association properties (seen in the harness suite, issue 29). Such a span joins the workflow's
 * trace when it comes from the same process with the same workflow and properties, inside the root's time. Two
 * sessions of one workflow at once in one process with the same properties cannot be told apart: give each its own
 * (`metron.question.id`, say).
 */
export function inWorkflowSession(root: FlatSpan, span: FlatSpan): boolean {
  return (
    span.traceId !== root.traceId &&
    workflowTie(span) === workflowTie(root) &&
    span.startNs >= root.startNs &&
    span.endNs <= root.endNs
  );
}

/**
 * A trace with nothing in it — no step, not even the question's text, and no question id — is not stored: an MCP
 * client's own connect and list spans once its calls have joined their workflow.
 */
export const hasSteps = (trace: AdaptedTrace) => trace.steps.length > 0 || trace.question.id !== undefined;

/** Spans of one or several export requests, grouped into traces. */
export function otlpTraces(docs: unknown[], warnings: AdapterResult["warnings"] = []): AdaptedTrace[] {
  const groups = new Map<string, FlatSpan[]>();
  for (const doc of docs)
    for (const s of flattenSpans(doc))
      (groups.get(groupKeyOf(s)) ?? groups.set(groupKeyOf(s), []).get(groupKeyOf(s))!).push(s);
  // The spans of a workflow's session in other OTel traces join it, as the receiver does (lib/otel/receiver.ts).
  for (const spans of groups.values()) {
    const root = workflowRoot(spans);
    if (!root) continue;
    for (const other of groups.values()) {
      if (other === spans) continue;
      const joining = other.filter((s) => inWorkflowSession(root, s));
      if (!joining.length) continue;
      spans.push(...joining);
      other.splice(0, other.length, ...other.filter((s) => !joining.includes(s)));
    }
  }
  const traces = eachAlone(
    [...groups.values()].filter((g) => g.length),
    "trace",
    warnings,
    assembleTrace,
  );
  const kept = traces.filter(hasSteps);
  if (kept.length < traces.length)
    warnings.push({
      line: 1,
      message: `${traces.length - kept.length} OTel trace(s) with no model call or tool call (an MCP client's own spans, say): not stored`,
    });
  return kept;
}

export const isOtlp = (v: unknown) => isObj(v) && Array.isArray(v.resourceSpans);

export const otlpAdapter: Adapter = {
  format: "otlp",
  label: "OpenTelemetry traces (OTLP/JSON)",
  signature: "a JSON object {resourceSpans: [...]}, or one per line (an OTLP file exporter's output)",
  adapt(text) {
    const body = text.replace(/^\uFEFF/, "").trim();
    const warnings: { line: number; message: string }[] = [];
    let docs: unknown[];
    try {
      docs = [JSON.parse(body)];
    } catch {
      docs = [];
      body.split(/\r?\n/).forEach((line, i) => {
        if (!line.trim()) return;
        try {
          const d = JSON.parse(line) as unknown;
          if (isOtlp(d)) docs.push(d);
          else warnings.push({ line: i + 1, message: "not an OTLP export (no resourceSpans)" });
        } catch (e) {
          warnings.push({ line: i + 1, message: `invalid JSON: ${(e as Error).message}` });
        }
      });
    }
    return { traces: otlpTraces(docs, warnings), warnings };
  },
};

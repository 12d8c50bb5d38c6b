/**
 * Codex CLI rollout JSONL (`~/.codex/sessions/…/rollout-*.jsonl`): `session_meta`, `turn_context` (the model),
 * `response_item` (message, reasoning, function_call with `call_id` and JSON-string arguments,
 * function_call_output) and `event_msg` lines. Token counts (`event_msg` of type `token_count`) are cumulative
 * totals: each step gets the delta since the previous count.
 *
 * Tool outputs come as text, as `{content, success}`, or as lists of content blocks (`[{type: "input_text", text}]`):
 * unwrapped to their text. A call Codex refused (it wanted approval), one whose output says it failed
 * (`success: false`), and an MCP call whose `mcp_tool_call_end` carries an `Err` or an `isError` result are error
 * steps: never a submission, never an answer that reached the database (issue 29). MCP calls keep their server in
 * the step's meta and take their duration from `mcp_tool_call_end`.
 *
 * Codex 0.171 (run by the harness suite) records an MCP call's outcome as `event_msg` `item_completed` with an
 * `McpToolCall` item (`status` completed | failed | declined…, the server's `CallToolResult`, `duration`), and wraps
 * each function output in a header block "Wall time: 0.02 seconds\nOutput:" that is Codex's, not the tool's: the
 * header is dropped (its time is the step's duration when nothing better says it), and the MCP item's own result
 * is the step's result. The trace's duration is the sum of its tasks' `task_complete.duration_ms`.
 */
import { parseArgs, textOf, jsonLines, unwrapToolResult, type Adapter, type ForeignStep } from "./types";

/** What Codex answers in place of a call it did not make. */
const REFUSED =
  /requires approval|rejected by (the )?user|not approved|approval (was )?denied|user denied|aborted by user/i;

/** `{secs, nanos}` or "1.234s" / "1.2ms" as milliseconds. */
function durationMs(d: unknown): number | undefined {
  if (d && typeof d === "object" && "secs" in d)
    return Number((d as { secs: number }).secs) * 1000 + Number((d as { nanos?: number }).nanos ?? 0) / 1e6;
  if (typeof d === "string") {
    const m = /^([\d.]+)\s*(ms|s|µs|us)?$/.exec(d.trim());
    if (m) return Number(m[1]) * (m[2] === "ms" ? 1 : m[2] === "µs" || m[2] === "us" ? 0.001 : 1000);
  }
  return undefined;
}

/** Codex's own header before a function output: "Wall time: 0.0205 seconds\nOutput:". */
const WALL_TIME = /^Wall time: ([\d.]+) seconds\s*(?:\nOutput:)?\s*$/;

/** An output array without Codex's header block, and the wall time the header gave. */
function withoutHeader(out: unknown): { out: unknown; wallMs?: number } {
  if (!Array.isArray(out)) return { out };
  const first = out[0] as { text?: unknown } | undefined;
  const m = typeof first?.text === "string" ? WALL_TIME.exec(first.text) : null;
  if (!m) return { out };
  const rest = out.slice(1);
  return { out: rest.length ? rest : [{ type: "input_text", text: "" }], wallMs: Number(m[1]) * 1000 };
}

/** The outcome of an MCP call as Codex recorded it, applied to its step. */
function applyMcpOutcome(
  step: ForeignStep,
  o: { server?: string; status?: string; result?: unknown; error?: unknown; duration?: unknown },
) {
  const ms = durationMs(o.duration);
  if (ms !== undefined) step.duration_ms = ms;
  if (o.server) step.meta = { ...step.meta, mcp_server: o.server };
  if (o.result !== undefined && o.result !== null) {
    const r = unwrapToolResult(o.result);
    if (typeof r.result === "string") step.result = r.result;
    if (r.isError) step.error = typeof r.result === "string" ? r.result : "the MCP tool reported an error";
  }
  if (o.error !== undefined && o.error !== null)
    step.error =
      typeof o.error === "string"
        ? o.error
        : typeof (o.error as { message?: unknown }).message === "string"
          ? (o.error as { message: string }).message
          : JSON.stringify(o.error);
  if (o.status && o.status !== "completed" && o.status !== "in_progress" && !step.error)
    step.error = typeof step.result === "string" && step.result ? step.result : `the call ${o.status}`;
}

type Usage = {
  input_tokens?: number;
  cached_input_tokens?: number;
  output_tokens?: number;
  reasoning_output_tokens?: number;
};

export const codexAdapter: Adapter = {
  format: "codex",
  label: "Codex CLI rollout JSONL",
  signature: "JSONL lines {type: session_meta | response_item | event_msg | turn_context, payload}",
  adapt(text) {
    const { lines, warnings } = jsonLines(text.replace(/^\uFEFF/, ""));
    const steps: ForeignStep[] = [];
    const calls = new Map<string, ForeignStep>();
    let question: string | undefined;
    let model: string | undefined;
    let sessionId: string | undefined;
    let started: string | undefined;
    let last: Usage = {};
    let durationTotal: number | undefined;
    let total: Usage = {};
    for (const { value, lineNo } of lines) {
      const type = value.type as string;
      const p = (value.payload ?? {}) as Record<string, unknown>;
      if (type === "session_meta") {
        sessionId = p.id as string;
        started = (p.timestamp as string) ?? (value.timestamp as string);
      } else if (type === "turn_context") {
        model ??= p.model as string | undefined;
      } else if (type === "response_item") {
        if (p.type === "message") {
          const role = p.role as string;
          const content = textOf(p.content);
          if (
            role === "user" &&
            question === undefined &&
            !content.startsWith("<environment_context>") &&
            !content.startsWith("<user_instructions>")
          )
            question = content;
          if (content) steps.push({ type: "message", role, content });
        } else if (p.type === "reasoning") {
          const summary = textOf(p.summary);
          steps.push({ type: "reasoning", content: summary || "(encrypted reasoning)" });
        } else if (p.type === "function_call" || p.type === "custom_tool_call") {
          const step: ForeignStep = {
            type: "tool_call",
            tool: p.name as string,
            args: parseArgs(p.arguments ?? p.input),
          };
          steps.push(step);
          if (p.call_id) calls.set(p.call_id as string, step);
        } else if (p.type === "function_call_output" || p.type === "custom_tool_call_output") {
          const target = calls.get(p.call_id as string);
          const { out, wallMs } = withoutHeader(p.output);
          const payload =
            typeof out === "object" && out && !Array.isArray(out) && "content" in out
              ? (out as { content: unknown; success?: boolean })
              : { content: out };
          const unwrapped = unwrapToolResult(payload.content);
          const text = typeof unwrapped.result === "string" ? unwrapped.result : undefined;
          if (target) {
            // An MCP item's own result (item_completed) came first and is the tool's; the output is what the model saw.
            if (target.result === undefined) target.result = parseArgs(unwrapped.result);
            if (target.duration_ms === undefined && wallMs !== undefined) target.duration_ms = wallMs;
            if (unwrapped.isError || payload.success === false || (text !== undefined && REFUSED.test(text)))
              target.error = text ?? "the call failed";
          } else warnings.push({ line: lineNo, message: `output for unknown call ${String(p.call_id)}` });
        }
      } else if (type === "event_msg" && p.type === "item_completed") {
        const item = (p.item ?? {}) as Record<string, unknown>;
        const step = typeof item.id === "string" ? calls.get(item.id) : undefined;
        if (item.type === "McpToolCall" && step) applyMcpOutcome(step, item);
      } else if (type === "event_msg" && p.type === "task_complete") {
        if (typeof p.duration_ms === "number") durationTotal = (durationTotal ?? 0) + p.duration_ms;
      } else if (type === "event_msg" && p.type === "mcp_tool_call_end") {
        // The MCP call's outcome as Codex saw it: its server, its duration, an error it kept from the model's view.
        const step = calls.get(p.call_id as string);
        const invocation = (p.invocation ?? {}) as { server?: string; tool?: string };
        const result = p.result as { Ok?: unknown; Err?: unknown } | undefined;
        if (step) {
          const ms = durationMs(p.duration);
          if (ms !== undefined) step.duration_ms = ms;
          if (invocation.server) step.meta = { ...step.meta, mcp_server: invocation.server };
          if (result && "Err" in result) step.error = String(result.Err);
          else if (result && "Ok" in result) {
            const ok = unwrapToolResult(result.Ok);
            if (step.result === undefined && typeof ok.result === "string") step.result = ok.result;
            if (ok.isError) step.error = typeof ok.result === "string" ? ok.result : "the MCP tool reported an error";
          }
        }
      } else if (type === "event_msg" && p.type === "token_count" && p.info) {
        const now = ((p.info as { total_token_usage?: Usage }).total_token_usage ?? {}) as Usage;
        const delta = (k: keyof Usage) => Math.max(0, (now[k] ?? 0) - (last[k] ?? 0));
        const target = [...steps].reverse().find((s) => s.type !== "message" || s.role === "assistant") ?? steps.at(-1);
        if (target)
          target.usage = {
            input_tokens: delta("input_tokens"),
            cached_input_tokens: delta("cached_input_tokens"),
            output_tokens: delta("output_tokens"),
            reasoning_tokens: delta("reasoning_output_tokens"),
          };
        last = now;
        total = now;
      }
    }
    return {
      traces: [
        {
          run: model ? { model } : undefined,
          question: { text: question },
          steps,
          usage: {
            input_tokens: total.input_tokens ?? 0,
            cached_input_tokens: total.cached_input_tokens ?? 0,
            output_tokens: total.output_tokens ?? 0,
            reasoning_tokens: total.reasoning_output_tokens ?? 0,
          },
          started_at: started,
          ...(durationTotal !== undefined ? { duration_ms: durationTotal } : {}),
          meta: { source_format: "codex", ...(sessionId ? { session_id: sessionId } : {}) },
        },
      ],
      warnings,
    };
  },
};

/**
 * Codex CLI rollout JSONL (`~/.codex/sessions/…/rollout-*.jsonl`): `session_meta`, `turn_context` (the model),
 * `response_item` (message, reasoning, function_call with `call_id` and JSON-string arguments,
 * function_call_output) and `event_msg` lines. Token counts (`event_msg` of type `token_count`) are cumulative
 * totals: each step gets the delta since the previous count.
 */
import { parseArgs, textOf, jsonLines, type Adapter, type ForeignStep } from "./types";

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
          const out = p.output as unknown;
          const result =
            typeof out === "object" && out && "content" in out ? (out as { content: unknown }).content : out;
          if (target) target.result = parseArgs(result);
          else warnings.push({ line: lineNo, message: `output for unknown call ${String(p.call_id)}` });
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
          meta: { source_format: "codex", ...(sessionId ? { session_id: sessionId } : {}) },
        },
      ],
      warnings,
    };
  },
};

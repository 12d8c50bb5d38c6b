/**
 * OpenCode session export (`opencode export`): `{info, messages: [{info, parts}]}`. Parts: `text`, `reasoning`,
 * `tool` (`callID`, `tool`, `state` {status, input, output, error, time {start, end}}), `step-finish` (tokens
 * {input, output, reasoning, cache {read, write}} and cost). MCP tools are named `<server>_<tool>`.
 *
 * What OpenCode 1.18 really writes (the harness suite runs it): `opencode run "a question"` stores the message
 * wrapped in double quotes (it quotes each argument that has a space): one pair around the whole text is
 * dropped. `tokens.input` excludes the cache: a call's input is input + cache read + cache write, its cached part
 * the cache read. The trace's duration runs from the first message's creation to the last one's completion.
 */
import { textOf, type Adapter, type ForeignStep } from "./types";

type Part = {
  type: string;
  text?: string;
  tool?: string;
  callID?: string;
  state?: {
    status?: string;
    input?: unknown;
    output?: unknown;
    error?: string;
    time?: { start?: number; end?: number };
  };
  tokens?: { input?: number; output?: number; reasoning?: number; cache?: { read?: number; write?: number } };
  cost?: number;
};
type Message = {
  info?: {
    id?: string;
    role?: string;
    modelID?: string;
    providerID?: string;
    time?: { created?: number; completed?: number };
  };
  parts?: Part[];
};

/** `opencode run`'s quoting of an argument with spaces: `"a question"` stored with its quotes. */
function unquoted(text: string): string {
  const m = /^"([^"]*)"$/.exec(text.trim());
  return m ? m[1] : text;
}

export const openCodeAdapter: Adapter = {
  format: "opencode",
  label: "OpenCode session export",
  signature: "a JSON object {info, messages: [{info, parts: [...]}]}",
  adapt(text) {
    const data = JSON.parse(text.replace(/^\uFEFF/, "")) as {
      info?: { id?: string; title?: string; time?: { created?: number } };
      messages: Message[];
    };
    const steps: ForeignStep[] = [];
    let question: string | undefined;
    let model: string | undefined;
    let cost = 0;
    let first: number | undefined;
    let lastDone: number | undefined;
    const usage = { input_tokens: 0, output_tokens: 0, reasoning_tokens: 0, cached_input_tokens: 0 };
    for (const m of data.messages ?? []) {
      const role = m.info?.role ?? "assistant";
      if (role === "assistant" && m.info?.modelID) model ??= m.info.providerID ? `${m.info.modelID}` : m.info.modelID;
      const t = m.info?.time;
      if (t?.created !== undefined) first = Math.min(first ?? t.created, t.created);
      const done = t?.completed ?? t?.created;
      if (done !== undefined) lastDone = Math.max(lastDone ?? done, done);
      let lastStep: ForeignStep | undefined;
      for (const p of m.parts ?? []) {
        if (p.type === "text" && p.text) {
          if (role === "user" && question === undefined) question = unquoted(p.text);
          steps.push((lastStep = { type: "message", role, content: p.text }));
        } else if (p.type === "reasoning" && p.text) {
          steps.push((lastStep = { type: "reasoning", role, content: p.text }));
        } else if (p.type === "tool") {
          const st = p.state ?? {};
          const step: ForeignStep = { type: "tool_call", tool: p.tool ?? "unknown", args: st.input };
          if (st.output !== undefined) step.result = typeof st.output === "string" ? st.output : textOf(st.output);
          if (st.status === "error") step.error = st.error ?? "tool error";
          if (st.time?.start && st.time.end) {
            step.started_at = new Date(st.time.start).toISOString();
            step.duration_ms = st.time.end - st.time.start;
          }
          if (p.callID) step.meta = { call_id: p.callID };
          steps.push((lastStep = step));
        } else if (p.type === "step-finish" && p.tokens) {
          const cached = p.tokens.cache?.read ?? 0;
          const stepUsage = {
            input_tokens: (p.tokens.input ?? 0) + cached + (p.tokens.cache?.write ?? 0),
            output_tokens: (p.tokens.output ?? 0) + (p.tokens.reasoning ?? 0),
            reasoning_tokens: p.tokens.reasoning ?? 0,
            cached_input_tokens: cached,
          };
          if (lastStep) lastStep.usage = stepUsage;
          usage.input_tokens += stepUsage.input_tokens;
          usage.output_tokens += stepUsage.output_tokens;
          usage.reasoning_tokens += stepUsage.reasoning_tokens;
          usage.cached_input_tokens += cached;
          cost += p.cost ?? 0;
        }
      }
    }
    return {
      traces: [
        {
          run: model ? { model } : undefined,
          question: { text: question },
          steps,
          usage: { ...usage, ...(cost ? { cost_usd: cost } : {}) },
          ...(data.info?.time?.created ? { started_at: new Date(data.info.time.created).toISOString() } : {}),
          ...(first !== undefined && lastDone !== undefined && lastDone > first
            ? { duration_ms: lastDone - first }
            : {}),
          meta: { source_format: "opencode", session_id: data.info?.id, title: data.info?.title },
        },
      ],
      warnings: [],
    };
  },
};

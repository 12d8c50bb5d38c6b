/** Anthropic messages: `{role, content: [text | thinking | tool_use | tool_result blocks]}`, results matched by `tool_use_id`. */
import { textOf, type Adapter, type AdaptedTrace, type ForeignStep } from "./types";

type Block = {
  type: string;
  text?: string;
  thinking?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
};
type Message = {
  role: string;
  content: string | Block[];
  usage?: { input_tokens?: number; output_tokens?: number; cache_read_input_tokens?: number };
  model?: string;
};

/** Shared with the Claude Code adapter: appends a message's blocks as steps. */
export function appendBlocks(
  steps: ForeignStep[],
  byId: Map<string, ForeignStep>,
  role: string,
  content: string | Block[],
  extra: Partial<ForeignStep> = {},
): number {
  let orphans = 0;
  if (typeof content === "string") {
    if (content) steps.push({ type: "message", role, content, ...extra });
    return 0;
  }
  let first = true;
  const withExtra = (s: ForeignStep): ForeignStep => {
    const out = first ? { ...s, ...extra } : { ...s, ...(extra.meta ? { meta: extra.meta } : {}) };
    first = false;
    return out;
  };
  for (const b of content) {
    if (b.type === "text" && b.text) steps.push(withExtra({ type: "message", role, content: b.text }));
    else if (b.type === "thinking" || b.type === "redacted_thinking")
      steps.push(withExtra({ type: "reasoning", role, content: b.thinking ?? "(redacted)" }));
    else if (b.type === "tool_use") {
      const step = withExtra({ type: "tool_call", tool: b.name ?? "unknown", args: b.input });
      steps.push(step);
      if (b.id) byId.set(b.id, step);
    } else if (b.type === "tool_result") {
      const target = b.tool_use_id ? byId.get(b.tool_use_id) : undefined;
      const result = textOf(b.content);
      if (target) {
        target.result = result;
        if (b.is_error) target.error = result || "tool error";
      } else {
        orphans++;
        steps.push({ type: "message", role: "tool", content: result });
      }
    }
  }
  return orphans;
}

export const anthropicMessagesAdapter: Adapter = {
  format: "anthropic-messages",
  label: "Anthropic messages (tool_use / tool_result blocks)",
  signature: "a JSON array of {role, content: [blocks]} with tool_use / tool_result blocks, or {messages: [...]}",
  adapt(text) {
    const data = JSON.parse(text.replace(/^\uFEFF/, ""));
    const messages: Message[] = Array.isArray(data) ? data : data.messages;
    const steps: ForeignStep[] = [];
    const byId = new Map<string, ForeignStep>();
    let orphans = 0;
    let question: string | undefined;
    if (!Array.isArray(data) && typeof data.system === "string")
      steps.push({ type: "message", role: "system", content: data.system });
    for (const m of messages) {
      if (m.role === "user" && question === undefined) {
        const t =
          typeof m.content === "string"
            ? m.content
            : m.content
                .filter((b) => b.type === "text")
                .map((b) => b.text)
                .join("\n");
        if (t) question = t;
      }
      const usage = m.usage
        ? {
            input_tokens: (m.usage.input_tokens ?? 0) + (m.usage.cache_read_input_tokens ?? 0),
            output_tokens: m.usage.output_tokens,
            cached_input_tokens: m.usage.cache_read_input_tokens,
          }
        : undefined;
      orphans += appendBlocks(steps, byId, m.role, m.content, {
        ...(usage ? { usage } : {}),
        ...(m.model ? { model: m.model } : {}),
      });
    }
    const model =
      (!Array.isArray(data) && typeof data.model === "string" ? data.model : undefined) ??
      messages.find((m) => typeof m.model === "string")?.model;
    const trace: AdaptedTrace = {
      ...(model ? { run: { model } } : {}),
      question: { text: question },
      steps,
      meta: { source_format: "anthropic-messages" },
    };
    return {
      traces: [trace],
      warnings: orphans
        ? [{ line: 1, message: `${orphans} tool results without a matching tool_use kept as messages` }]
        : [],
    };
  },
};

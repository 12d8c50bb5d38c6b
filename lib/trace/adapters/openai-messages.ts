/**
 * OpenAI-style chat messages: `{role, content, tool_calls}` with `tool` messages carrying results. Tool calls may
 * be `{id, type: "function", function: {name, arguments}}` or bare `{name, arguments}`; arguments a JSON string
 * or an object; results are matched by `tool_call_id`, or in call order when there are no ids (Spider-Agent).
 * A file is an array of messages, `{messages: [...]}`, or an array of rollouts `{instance_id, conversation}`.
 */
import { eachAlone, parseArgs, textOf, type Adapter, type AdaptedTrace, type ForeignStep } from "./types";

type Message = {
  model?: string;
  role?: string;
  content?: unknown;
  tool_calls?: unknown[];
  tool_call_id?: string;
  name?: string;
  reasoning_content?: string;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
};

export function adaptOpenAiMessages(
  messages: Message[],
  meta: Record<string, unknown> = {},
): { trace: AdaptedTrace; orphans: number } {
  const steps: ForeignStep[] = [];
  const byId = new Map<string, ForeignStep>();
  const pending: ForeignStep[] = [];
  let orphans = 0;
  let question: string | undefined;
  for (const m of messages) {
    const role = m.role ?? "user";
    if (role === "tool" || role === "function") {
      const target = (m.tool_call_id && byId.get(m.tool_call_id)) || pending.shift();
      const content = textOf(m.content);
      if (target) {
        target.result = content;
        if (m.tool_call_id) pending.splice(pending.indexOf(target), 1);
      } else {
        orphans++;
        steps.push({ type: "message", role: "tool", content });
      }
      continue;
    }
    if (role === "user" && question === undefined) question = textOf(m.content);
    if (m.reasoning_content) steps.push({ type: "reasoning", role, content: m.reasoning_content });
    const text = textOf(m.content);
    const usage = m.usage
      ? { input_tokens: m.usage.prompt_tokens, output_tokens: m.usage.completion_tokens }
      : undefined;
    if (text)
      steps.push({ type: "message", role, content: text, ...(usage && !m.tool_calls?.length ? { usage } : {}) });
    (m.tool_calls ?? []).forEach((raw, i) => {
      const call = raw as {
        id?: string;
        function?: { name?: string; arguments?: unknown };
        name?: string;
        arguments?: unknown;
      };
      const step: ForeignStep = {
        type: "tool_call",
        tool: call.function?.name ?? call.name ?? "unknown",
        args: parseArgs(call.function?.arguments ?? call.arguments),
      };
      if (usage && i === 0) step.usage = usage;
      steps.push(step);
      if (call.id) byId.set(call.id, step);
      pending.push(step);
    });
  }
  return {
    trace: { question: { text: question }, steps, meta: { source_format: "openai-messages", ...meta } },
    orphans,
  };
}

export const openAiMessagesAdapter: Adapter = {
  format: "openai-messages",
  label: "OpenAI chat messages (tool_calls / tool messages)",
  signature:
    "a JSON array of {role, content, tool_calls} messages, {messages: [...]}, or rollouts {instance_id, conversation: [...]}",
  adapt(text, context = {}) {
    const data = JSON.parse(text.replace(/^\uFEFF/, ""));
    const rollouts: {
      messages: Message[];
      meta: Record<string, unknown>;
      id?: string;
      sample?: number;
      terminated?: unknown;
      model?: string;
    }[] = [];
    if (
      Array.isArray(data) &&
      data.every((d) => d && typeof d === "object" && Array.isArray((d as { conversation?: unknown }).conversation))
    ) {
      for (const r of data as {
        instance_id?: string;
        rollout_idx?: number;
        conversation: Message[];
        terminated?: unknown;
        model?: string;
      }[]) {
        const sample = r.rollout_idx === undefined ? undefined : Number(r.rollout_idx);
        rollouts.push({
          messages: r.conversation,
          id: r.instance_id,
          sample: Number.isInteger(sample) ? sample : undefined,
          terminated: r.terminated,
          model: r.model,
          meta: { instance_id: r.instance_id, rollout_idx: r.rollout_idx, terminated: r.terminated },
        });
      }
    } else {
      rollouts.push({
        messages: Array.isArray(data) ? data : (data.messages ?? data.conversation),
        meta: {},
        model: Array.isArray(data) ? undefined : (data.model as string | undefined),
      });
    }
    const warnings: { line: number; message: string }[] = [];
    const traces = eachAlone(rollouts, "rollout", warnings, (r, i) => {
      const { trace, orphans } = adaptOpenAiMessages(r.messages, r.meta);
      if (orphans)
        warnings.push({
          line: 1,
          message: `rollout ${i}: ${orphans} tool results without a matching call kept as messages`,
        });
      if (r.id) trace.question.id = r.id;
      if (r.sample !== undefined) trace.sample = r.sample;
      // The model: the rollout's or a message's own field; else Spider-Agent's file naming, `<agent>_<model>_<instance_id>.json`.
      const own = r.model ?? r.messages.find((m) => typeof m.model === "string")?.model;
      const named = own ? undefined : modelFromFileName(context.fileName, r.id);
      if (own || named) trace.run = { ...trace.run, model: own ?? named };
      if (named) trace.meta.model_source = "the file name (Spider-Agent's <agent>_<model>_<instance_id>.json)";
      return trace;
    });
    return { traces, warnings };
  },
};

/** Spider-Agent names its results `<agent>_<model>_<instance_id>.json`: the model, when the instance id matches the content. */
function modelFromFileName(fileName: string | undefined, instanceId: string | undefined): string | undefined {
  if (!fileName || !instanceId) return undefined;
  const base = fileName.replace(/^.*[\\/]/, "").replace(/\.json$/i, "");
  if (!base.endsWith(`_${instanceId}`)) return undefined;
  const head = base.slice(0, -instanceId.length - 1);
  const cut = head.indexOf("_");
  const model = cut === -1 ? "" : head.slice(cut + 1);
  return model || undefined;
}

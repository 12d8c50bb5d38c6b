/**
 * ATIF, the Agent Trajectory Interchange Format of Harbor / Terminal-Bench (RFC 0001, v1.0–1.7): `{schema_version:
 * "ATIF-v1.x", session_id, agent: {name, version, model_name}, steps: [{step_id, timestamp, source: system|user|agent,
 * model_name, message, reasoning_content, tool_calls: [{tool_call_id, function_name, arguments}], observation:
 * {results: [{source_call_id, content}]}, metrics: {prompt_tokens, completion_tokens, cached_tokens, cost_usd}}],
 * final_metrics, extra}`. One trace per file (or per element of an array of trajectories). An agent step becomes its
 * reasoning, its message, then one tool call per `tool_calls` entry with the observation result of the same id;
 * results without a call are kept as tool messages. `prompt_tokens` already includes cached tokens, as Metron's
 * input does. The agent's name is the system, `model_name` the model.
 */
import { eachAlone, textOf, type Adapter, type AdaptedTrace, type ForeignStep, lastSubmittedSql } from "./types";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => Boolean(v) && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

export const isAtif = (v: unknown): boolean =>
  isObj(v) && typeof v.schema_version === "string" && /^ATIF-v1\./.test(v.schema_version) && Array.isArray(v.steps);

function usageOf(m: unknown): ForeignStep["usage"] | undefined {
  if (!isObj(m) || (num(m.prompt_tokens) === undefined && num(m.completion_tokens) === undefined)) return undefined;
  const extra = isObj(m.extra) ? m.extra : {};
  return {
    input_tokens: num(m.prompt_tokens) ?? 0,
    output_tokens: num(m.completion_tokens) ?? 0,
    ...(num(m.cached_tokens) ? { cached_input_tokens: num(m.cached_tokens) } : {}),
    ...(num(extra.reasoning_tokens) !== undefined ? { reasoning_tokens: num(extra.reasoning_tokens) } : {}),
  };
}

function adaptTrajectory(t: Json, warnings: { line: number; message: string }[], index: number): AdaptedTrace {
  const agent = isObj(t.agent) ? t.agent : {};
  const steps: ForeignStep[] = [];
  let firstUser: string | undefined;
  let lastAgentText: string | undefined;
  for (const s of (t.steps as unknown[]).filter(isObj)) {
    const at = str(s.timestamp) ? { started_at: s.timestamp as string } : {};
    const source = str(s.source) ?? "agent";
    const message = textOf(s.message);
    if (source !== "agent") {
      if (source === "user" && firstUser === undefined) firstUser = message;
      steps.push({ type: "message", role: source, content: message, ...at });
      continue;
    }
    const model = str(s.model_name) ?? str(agent.model_name);
    if (str(s.reasoning_content)) steps.push({ type: "reasoning", content: s.reasoning_content as string, ...at });
    const calls = Array.isArray(s.tool_calls) ? s.tool_calls.filter(isObj) : [];
    const results =
      isObj(s.observation) && Array.isArray(s.observation.results) ? s.observation.results.filter(isObj) : [];
    const usage = usageOf(s.metrics);
    const cost = isObj(s.metrics) ? num(s.metrics.cost_usd) : undefined;
    if (message || calls.length === 0) {
      lastAgentText = message || lastAgentText;
      steps.push({ type: "message", role: "assistant", content: message, ...at, ...(model ? { model } : {}) });
    }
    const used = new Set<Json>();
    for (const c of calls) {
      const r = results.find((x) => x.source_call_id === c.tool_call_id);
      if (r) used.add(r);
      steps.push({
        type: "tool_call",
        tool: str(c.function_name) ?? "unknown",
        args: c.arguments ?? {},
        ...(r && r.content !== undefined ? { result: textOf(r.content) } : {}),
        ...at,
        meta: { tool_call_id: c.tool_call_id },
      });
    }
    for (const r of results.filter((x) => !used.has(x)))
      steps.push({
        type: "message",
        role: "tool",
        content: textOf(r.content),
        meta: { source_call_id: r.source_call_id },
      });
    // The turn's usage and cost on its last step, counted once.
    const last = steps[steps.length - 1];
    if (usage) last.usage = usage;
    if (cost !== undefined) last.meta = { ...last.meta, cost_usd: cost };
  }
  const fm = isObj(t.final_metrics) ? t.final_metrics : {};
  const extra = isObj(t.extra) ? t.extra : {};
  if (steps.length === 0) warnings.push({ line: index + 1, message: "a trajectory without steps" });
  const submitted = lastSubmittedSql(steps);
  return {
    run: {
      ...(str(agent.name) ? { system: agent.name as string } : {}),
      ...(str(agent.model_name) ? { model: agent.model_name as string } : {}),
    },
    question: {
      ...((str(extra.question_id) ?? str(extra.instance_id) ?? str(extra.task_id))
        ? { id: str(extra.question_id) ?? str(extra.instance_id) ?? str(extra.task_id) }
        : {}),
      ...(firstUser ? { text: firstUser } : {}),
      ...(str(extra.db_id) ? { db_id: extra.db_id as string } : {}),
    },
    steps,
    final_sql: submitted ?? null,
    ...(typeof extra.correct === "boolean" || typeof extra.reward === "number"
      ? { outcome: { correct: typeof extra.correct === "boolean" ? extra.correct : (extra.reward as number) > 0 } }
      : {}),
    ...(num(fm.total_prompt_tokens) !== undefined || num(fm.total_cost_usd) !== undefined
      ? {
          usage: {
            ...(num(fm.total_prompt_tokens) !== undefined ? { input_tokens: num(fm.total_prompt_tokens) } : {}),
            ...(num(fm.total_completion_tokens) !== undefined
              ? { output_tokens: num(fm.total_completion_tokens) }
              : {}),
            ...(num(fm.total_cached_tokens) ? { cached_input_tokens: num(fm.total_cached_tokens) } : {}),
            ...(num(fm.total_cost_usd) !== undefined ? { cost_usd: num(fm.total_cost_usd) } : {}),
          },
        }
      : {}),
    ...(str((t.steps as Json[])[0]?.timestamp) ? { started_at: (t.steps as Json[])[0].timestamp as string } : {}),
    meta: {
      source_format: "atif",
      atif: {
        schema_version: t.schema_version,
        session_id: t.session_id,
        agent: { name: agent.name, version: agent.version },
        ...(t.notes ? { notes: t.notes } : {}),
      },
      ...(lastAgentText && !submitted ? { final_message: lastAgentText.slice(0, 2000) } : {}),
    },
  };
}

export const atifAdapter: Adapter = {
  format: "atif",
  label: "ATIF trajectory (Harbor, Terminal-Bench)",
  signature: 'a JSON object {schema_version: "ATIF-v1.x", session_id, agent, steps: [...]} (or an array of them)',
  adapt(text) {
    const data = JSON.parse(text.replace(/^\uFEFF/, "")) as unknown;
    const list = Array.isArray(data) ? data : [data];
    const warnings: { line: number; message: string }[] = [];
    const traces = eachAlone(list, "trajectory", warnings, (t, i) => {
      if (isAtif(t)) return [adaptTrajectory(t as Json, warnings, i)];
      warnings.push({ line: i + 1, message: "not an ATIF trajectory (no schema_version ATIF-v1.x with steps)" });
      return [];
    });
    return { traces, warnings };
  },
};

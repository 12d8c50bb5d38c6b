/**
 * Inspect AI logs (`.json`, and `.eval` once unzipped by inspect-zip.ts): `{version, eval, plan, results, stats,
 * samples: [EvalSample]}`. One trace per sample and epoch (epochs are samples for Pass@K: sample = epoch − 1).
 * Steps come from the sample's events in order — `model` events as the assistant's reasoning and text with their
 * usage and model, `tool` events as tool calls with arguments, result, error and timing — or, for logs without
 * events, from its messages (assistant tool calls paired with tool messages by id). The target is the gold SQL when
 * it reads as SQL; the first score is the recorded outcome (C/I, true/false, 1/0). `attachment://` references are
 * resolved from the sample's attachments. Field names follow inspect_ai's log models (log/_log.py, event/_tool.py,
 * event/_model.py, model/_model_output.py).
 */
import { eachAlone, textOf, type Adapter, type AdaptedTrace, type AdapterResult, type ForeignStep } from "./types";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => Boolean(v) && typeof v === "object" && !Array.isArray(v);
const str = (v: unknown) => (typeof v === "string" && v ? v : undefined);
const num = (v: unknown) => (typeof v === "number" && Number.isFinite(v) ? v : undefined);

const SQL_START = /^\s*(?:```(?:sql|sqlite)?\s*)?(select|with|pragma|insert|update|delete)\b/i;

/** Replaces `attachment://<key>` strings by their content, anywhere in the sample. */
function resolveAttachments(value: unknown, attachments: Record<string, string>): unknown {
  if (typeof value === "string")
    return value.startsWith("attachment://") ? (attachments[value.slice(13)] ?? value) : value;
  if (Array.isArray(value)) return value.map((v) => resolveAttachments(v, attachments));
  if (isObj(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolveAttachments(v, attachments)]));
  return value;
}

/** Text and reasoning of a message's content (a string, or content blocks `{type: text|reasoning, …}`). */
function contentParts(content: unknown): { text: string; reasoning: string } {
  if (typeof content === "string") return { text: content, reasoning: "" };
  if (!Array.isArray(content)) return { text: "", reasoning: "" };
  const text: string[] = [];
  const reasoning: string[] = [];
  for (const b of content) {
    if (!isObj(b)) continue;
    if (b.type === "reasoning") {
      const r = str(b.reasoning) ?? str(b.summary);
      if (r) reasoning.push(r);
    } else if (b.type === "text" && typeof b.text === "string") text.push(b.text);
  }
  return { text: text.join("\n"), reasoning: reasoning.join("\n") };
}

function usageOf(u: unknown): ForeignStep["usage"] | undefined {
  if (!isObj(u)) return undefined;
  const cached = num(u.input_tokens_cache_read) ?? 0;
  const written = num(u.input_tokens_cache_write) ?? 0;
  return {
    // Inspect's input_tokens excludes cache reads and writes; Metron's input counts every token sent.
    input_tokens: (num(u.input_tokens) ?? 0) + cached + written,
    output_tokens: num(u.output_tokens) ?? 0,
    ...(num(u.reasoning_tokens) !== undefined ? { reasoning_tokens: num(u.reasoning_tokens) } : {}),
    ...(cached ? { cached_input_tokens: cached } : {}),
  };
}

const ms = (iso: unknown) => (typeof iso === "string" ? Date.parse(iso) : Number.NaN);

function stepsFromEvents(events: Json[]): ForeignStep[] {
  const steps: ForeignStep[] = [];
  for (const e of events) {
    if (e.event === "model" && isObj(e.output)) {
      const output = e.output as Json;
      const choice = Array.isArray(output.choices) && isObj(output.choices[0]) ? (output.choices[0] as Json) : null;
      const message = choice && isObj(choice.message) ? (choice.message as Json) : null;
      const { text, reasoning } = contentParts(message?.content);
      const usage = usageOf(output.usage);
      const model = str(output.model) ?? str(e.model);
      const timing = {
        ...(str(e.timestamp) ? { started_at: e.timestamp as string } : {}),
        ...(num(e.working_time) !== undefined ? { duration_ms: Math.round((e.working_time as number) * 1000) } : {}),
      };
      if (reasoning) steps.push({ type: "reasoning", content: reasoning, ...timing });
      // The call's usage goes on its last step, so it is counted once.
      steps.push({
        type: e.error ? "error" : "message",
        role: "assistant",
        content: text || (e.error ? String(e.error) : ""),
        ...(e.error ? { error: String(e.error) } : {}),
        ...(reasoning ? {} : timing),
        ...(usage ? { usage } : {}),
        ...(model ? { model } : {}),
      });
    } else if (e.event === "tool") {
      const error = isObj(e.error) ? str((e.error as Json).message) : undefined;
      const started = ms(e.timestamp);
      const completed = ms(e.completed);
      const duration =
        num(e.working_time) !== undefined
          ? Math.round((e.working_time as number) * 1000)
          : Number.isFinite(started) && Number.isFinite(completed)
            ? Math.max(0, completed - started)
            : undefined;
      steps.push({
        type: "tool_call",
        tool: str(e.function) ?? "unknown",
        args: e.arguments ?? {},
        // A failed call's empty result is no result at all.
        ...(error && !e.result ? {} : { result: typeof e.result === "string" ? e.result : textOf(e.result) }),
        ...(error ? { error } : {}),
        ...(str(e.timestamp) ? { started_at: e.timestamp as string } : {}),
        ...(duration !== undefined ? { duration_ms: duration } : {}),
        meta: { tool_call_id: e.id },
      });
    }
  }
  return steps;
}

function stepsFromMessages(messages: Json[]): ForeignStep[] {
  const results = new Map<string, Json>();
  for (const m of messages) if (m.role === "tool" && typeof m.tool_call_id === "string") results.set(m.tool_call_id, m);
  const steps: ForeignStep[] = [];
  for (const m of messages) {
    if (m.role === "tool") continue;
    const { text, reasoning } = contentParts(m.content);
    if (m.role === "assistant") {
      if (reasoning) steps.push({ type: "reasoning", content: reasoning });
      if (text)
        steps.push({
          type: "message",
          role: "assistant",
          content: text,
          ...(str(m.model) ? { model: m.model as string } : {}),
        });
      for (const call of Array.isArray(m.tool_calls) ? (m.tool_calls as Json[]) : []) {
        const result = typeof call.id === "string" ? results.get(call.id) : undefined;
        const error = result && isObj(result.error) ? str((result.error as Json).message) : undefined;
        steps.push({
          type: "tool_call",
          tool: str(call.function) ?? "unknown",
          args: call.arguments ?? {},
          ...(result ? { result: textOf(result.content) } : {}),
          ...(error ? { error } : {}),
          meta: { tool_call_id: call.id },
        });
      }
    } else steps.push({ type: "message", role: String(m.role ?? "user"), content: text });
  }
  return steps;
}

/** A score's value as an outcome: C/I (and Inspect's other letters), booleans, 1/0. */
function correctOf(value: unknown): boolean | null {
  if (value === "C" || value === true || value === 1) return true;
  if (value === "I" || value === false || value === 0) return false;
  if (typeof value === "string" && ["correct", "true", "yes"].includes(value.toLowerCase())) return true;
  if (typeof value === "string" && ["incorrect", "false", "no"].includes(value.toLowerCase())) return false;
  return null;
}

export function adaptInspectLog(log: Json, warnings: AdapterResult["warnings"] = []): AdaptedTrace[] {
  const ev = isObj(log.eval) ? (log.eval as Json) : {};
  const samples = Array.isArray(log.samples) ? (log.samples as Json[]) : [];
  const model = str(ev.model);
  const task = str(ev.task);
  return eachAlone(samples.filter(isObj), "sample", warnings, (raw) => {
    const s = resolveAttachments(
      raw,
      isObj(raw.attachments) ? (raw.attachments as Record<string, string>) : {},
    ) as Json;
    const input = s.input;
    const questionText =
      typeof input === "string"
        ? input
        : Array.isArray(input)
          ? contentParts((input as Json[]).find((m) => isObj(m) && m.role === "user")?.content).text
          : undefined;
    const target = Array.isArray(s.target) ? s.target.map(String).join("\n") : str(s.target);
    const metadata = isObj(s.metadata) ? (s.metadata as Json) : {};
    const events = Array.isArray(s.events) ? (s.events as unknown[]).filter(isObj) : [];
    const body = events.some((e) => e.event === "model" || e.event === "tool")
      ? stepsFromEvents(events)
      : stepsFromMessages((Array.isArray(s.messages) ? (s.messages as unknown[]) : []).filter(isObj));
    const steps: ForeignStep[] = [{ type: "message", role: "user", content: questionText ?? "" }, ...body];
    const scores = isObj(s.scores) ? Object.entries(s.scores as Record<string, Json>) : [];
    const [scorer, score] = scores[0] ?? [];
    const answer = score ? str(score.answer) : undefined;
    const output = isObj(s.output) ? (s.output as Json) : {};
    const completion = contentParts(
      isObj((output.choices as Json[] | undefined)?.[0]?.message)
        ? ((output.choices as Json[])[0].message as Json).content
        : undefined,
    ).text;
    const finalSql = [answer, completion].find((t) => t && SQL_START.test(t));
    const usage = isObj(s.model_usage)
      ? Object.values(s.model_usage as Record<string, unknown>).reduce<NonNullable<AdaptedTrace["usage"]>>((sum, u) => {
          const x = usageOf(u);
          const cost = isObj(u) ? num(u.total_cost) : undefined;
          return {
            input_tokens: (sum.input_tokens ?? 0) + (x?.input_tokens ?? 0),
            output_tokens: (sum.output_tokens ?? 0) + (x?.output_tokens ?? 0),
            ...(cost !== undefined ? { cost_usd: (sum.cost_usd ?? 0) + cost } : {}),
          };
        }, {})
      : undefined;
    const epoch = num(s.epoch) ?? 1;
    const error = isObj(s.error) ? str((s.error as Json).message) : str(s.error);
    const firstTime = events.map((e) => str(e.timestamp)).find(Boolean);
    return {
      run: {
        ...(task ? { name: `${task}${str(ev.run_id) ? ` (${ev.run_id})` : ""}` } : {}),
        ...(model ? { model } : {}),
      },
      question: {
        ...(s.id !== undefined ? { id: String(s.id) } : {}),
        ...(questionText ? { text: questionText } : {}),
        ...((str(metadata.db_id) ?? str(metadata.database))
          ? { db_id: str(metadata.db_id) ?? str(metadata.database) }
          : {}),
        ...(target && SQL_START.test(target) ? { gold_sql: target } : {}),
        ...(str(metadata.evidence) ? { evidence: metadata.evidence as string } : {}),
      },
      sample: Math.max(0, epoch - 1),
      steps,
      final_sql: finalSql ?? null,
      outcome: {
        correct: score ? correctOf(score.value) : null,
        status: error ? "error" : str(s.limit) ? "max_steps" : finalSql ? "submitted" : "no_submission",
        ...(error ? { error } : {}),
      },
      ...(usage && Object.keys(usage).length ? { usage } : {}),
      ...(num(s.total_time) !== undefined ? { duration_ms: Math.round((s.total_time as number) * 1000) } : {}),
      ...(firstTime ? { started_at: firstTime } : {}),
      meta: {
        source_format: "inspect",
        inspect: {
          task,
          run_id: ev.run_id,
          eval_id: ev.eval_id,
          sample_id: s.id,
          epoch,
          ...(scorer ? { scorer, score: score?.value, explanation: score?.explanation } : {}),
          ...(target && !SQL_START.test(target) ? { target } : {}),
        },
      },
    };
  });
}

export const inspectAdapter: Adapter = {
  format: "inspect",
  label: "Inspect AI log (.json or .eval)",
  signature:
    "a JSON object {eval: {task, model, …}, samples: [{id, epoch, events | messages, scores}]} or an .eval zip",
  adapt(text) {
    const log = JSON.parse(text.replace(/^\uFEFF/, "")) as Json;
    const warnings: AdapterResult["warnings"] = [];
    const traces = adaptInspectLog(log, warnings);
    if (traces.length === 0 && warnings.length === 0)
      warnings.push({ line: 1, message: "the log has no samples (a .json log written with --no-log-samples?)" });
    return { traces, warnings };
  },
};

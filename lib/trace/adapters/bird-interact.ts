/**
 * BIRD-Interact's agent runs (bird_interact_agent/batch_run_bird_interact/main.py): a JSONL of SampleStatus records
 * `{idx, original_data: {instance_id, selected_database, amb_user_query, …}, interaction_history: [{turn, phase,
 * thought, interaction_object: Environment|User, action, observation, reward, budget_after_action}],
 * phase1_completed, phase2_completed, task_finished, last_reward, successful_phase1_sql, total_budget,
 * remaining_budget}` (SampleStatus.add_turn_log writes the history entries). One trace per record. Environment
 * actions (`execute('…')`, `get_schema()`, `get_column_meaning('t', 'c')`, knowledge look-ups) are tool calls with
 * their observation as result; `ask('…')` is the agent's message to the user simulator and the observation its
 * reply (two message steps); `submit('…')` is the submission. Each step carries the action's budget cost and the
 * budget left after it. Phase 1 passed is the recorded outcome.
 */
import { jsonLines, type Adapter, type AdaptedTrace, type ForeignStep } from "./types";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => Boolean(v) && typeof v === "object" && !Array.isArray(v);

/** The costs of main.py's ACTION_COSTS (a wrongly formatted action costs 0.2). */
const ACTION_COSTS: Record<string, number> = {
  ask: 2,
  submit: 3,
  execute: 1,
  get_schema: 1,
  get_all_column_meanings: 1,
  get_column_meaning: 0.5,
  get_all_external_knowledge_names: 0.5,
  get_knowledge_definition: 0.5,
  get_all_knowledge_definitions: 1,
};

export const isBirdInteractRecord = (v: unknown) =>
  isObj(v) && isObj(v.original_data) && Array.isArray(v.interaction_history);

/** `name('a', "b", """c""")` → name and its string arguments. */
export function parseInteractAction(action: string): { name: string; args: string[] } | null {
  const m = action.trim().match(/^(\w+)\(([\s\S]*)\)$/);
  if (!m) return null;
  const args: string[] = [];
  for (const a of m[2].matchAll(/"""([\s\S]*?)"""|'''([\s\S]*?)'''|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'/g))
    args.push((a[1] ?? a[2] ?? a[3] ?? a[4]).trim());
  // submit/ask/execute with a bare argument (main.py strips quotes itself)
  if (args.length === 0 && m[2].trim()) args.push(m[2].trim());
  return { name: m[1], args };
}

function toolArgs(name: string, args: string[]): Json {
  if (name === "execute" || name === "submit") return { sql: args[0] ?? "" };
  if (name === "get_column_meaning") return { table_name: args[0], column_name: args[1] };
  if (name === "get_knowledge_definition") return { knowledge: args[0] };
  return args.length ? { args } : {};
}

function adaptRecord(r: Json): AdaptedTrace {
  const data = r.original_data as Json;
  const steps: ForeignStep[] = [];
  const query =
    typeof data.amb_user_query === "string"
      ? data.amb_user_query
      : typeof data.user_query === "string"
        ? data.user_query
        : undefined;
  if (query) steps.push({ type: "message", role: "user", content: query });
  let lastSubmit: string | undefined;
  for (const h of (r.interaction_history as unknown[]).filter(isObj)) {
    const budget = isObj(h.budget_after_action) ? h.budget_after_action : undefined;
    if (typeof h.thought === "string" && h.thought.trim()) steps.push({ type: "reasoning", content: h.thought });
    const action = typeof h.action === "string" ? h.action : "";
    const parsed = parseInteractAction(action);
    const observation =
      typeof h.observation === "string"
        ? h.observation
        : h.observation == null
          ? undefined
          : JSON.stringify(h.observation);
    const meta = {
      turn: h.turn,
      phase: h.phase,
      interaction_object: h.interaction_object,
      cost: parsed ? (ACTION_COSTS[parsed.name] ?? 0.2) : 0.2,
      ...(budget ? { budget_after_action: budget } : {}),
      ...(typeof h.reward === "number" && h.reward ? { reward: h.reward } : {}),
    };
    if (!parsed) {
      steps.push({
        type: "error",
        error: `an action BIRD-Interact could not parse: ${action.slice(0, 200)}`,
        ...(observation ? { content: observation } : {}),
        meta,
      });
      continue;
    }
    if (parsed.name === "ask") {
      steps.push({
        type: "message",
        role: "assistant",
        content: parsed.args[0] ?? "",
        meta: { ...meta, action: "ask" },
      });
      if (observation !== undefined)
        steps.push({ type: "message", role: "user", content: observation, meta: { user_simulator: true } });
      continue;
    }
    if (parsed.name === "submit") lastSubmit = parsed.args[0];
    steps.push({
      type: "tool_call",
      tool: parsed.name,
      args: toolArgs(parsed.name, parsed.args),
      ...(observation !== undefined ? { result: observation } : {}),
      meta,
    });
  }
  const finalSql = (typeof r.successful_phase1_sql === "string" && r.successful_phase1_sql) || lastSubmit || null;
  return {
    question: {
      ...(typeof data.instance_id === "string" ? { id: data.instance_id } : {}),
      ...(query ? { text: query } : {}),
      ...(typeof data.selected_database === "string" ? { db_id: data.selected_database } : {}),
    },
    steps,
    final_sql: finalSql,
    outcome: {
      correct: typeof r.phase1_completed === "boolean" ? r.phase1_completed : null,
      status: lastSubmit ? "submitted" : r.task_finished ? "no_submission" : "max_steps",
    },
    meta: {
      source_format: "bird-interact",
      bird_interact: {
        idx: r.idx,
        phase1_completed: r.phase1_completed,
        phase2_completed: r.phase2_completed,
        last_reward: r.last_reward,
        total_budget: r.total_budget,
        remaining_budget: r.remaining_budget,
        turns: r.current_turn,
      },
    },
  };
}

export const birdInteractAdapter: Adapter = {
  format: "bird-interact",
  label: "BIRD-Interact agent run (JSONL of sample statuses)",
  signature:
    "JSON lines {idx, original_data: {instance_id, …}, interaction_history: [{thought, interaction_object, action, observation}]}",
  adapt(text) {
    const { lines, warnings } = jsonLines(text);
    const traces: AdaptedTrace[] = [];
    for (const { lineNo, value } of lines) {
      if (isBirdInteractRecord(value)) traces.push(adaptRecord(value));
      else
        warnings.push({
          line: lineNo,
          message: "not a BIRD-Interact sample status (no original_data and interaction_history)",
        });
    }
    return { traces, warnings };
  },
};

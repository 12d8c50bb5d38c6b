/**
 * MAC-SQL's `api_trace.json` (core/llm.py, safe_call_llm): JSON lines, one per model call, with the question's fields
 * that core/utils.py extract_world_info copies (`idx`, `db_id`, `query`, `evidence`, `difficulty`, `ground_truth`,
 * `send_to`: the agent making the call — Selector, Decomposer, Refiner) and the call's `input_prompt`, `response`,
 * `prompt_token`, `response_token`. One trace per `idx`: each call is a step of its agent stage, with its tokens;
 * the last SQL a Decomposer or Refiner answered is the final SQL; `ground_truth` is the gold SQL. MAC-SQL calls no
 * tools (the Selector prunes the schema from the prompt), so a trace has no exploratory calls; the prompts (whole
 * schemas) are kept in each step's meta as their size only.
 */
import { jsonLines, type Adapter, type AdaptedTrace, type ForeignStep } from "./types";

type Json = Record<string, unknown>;

export const isMacSqlLine = (o: Json) => "input_prompt" in o && "response" in o && "prompt_token" in o;

/** The last SQL of a response: a ```sql block, else a `{"sql": …}` field, else nothing. */
function sqlOf(response: string): string | undefined {
  const blocks = [...response.matchAll(/```(?:sql|sqlite)?\s*\n([\s\S]*?)```/gi)].map((m) => m[1].trim());
  if (blocks.length) return blocks[blocks.length - 1];
  const field = response.match(/"sql"\s*:\s*"((?:[^"\\]|\\.)*)"/);
  return field ? (JSON.parse(`"${field[1]}"`) as string) : undefined;
}

export const macSqlAdapter: Adapter = {
  format: "mac-sql",
  label: "MAC-SQL api_trace.json",
  signature: "JSON lines {idx, db_id, query, send_to, input_prompt, response, prompt_token, response_token}",
  adapt(text) {
    const { lines, warnings } = jsonLines(text);
    const groups = new Map<string, Json[]>();
    for (const { lineNo, value } of lines) {
      if (!isMacSqlLine(value)) {
        warnings.push({
          line: lineNo,
          message: "not a MAC-SQL api_trace line (no input_prompt, response, prompt_token)",
        });
        continue;
      }
      const key = String(value.idx ?? `${value.db_id ?? ""}:${value.query ?? ""}`);
      (groups.get(key) ?? groups.set(key, []).get(key)!).push(value);
    }
    const traces: AdaptedTrace[] = [...groups].map(([idx, calls]) => {
      const first = calls[0];
      const steps: ForeignStep[] = [];
      if (typeof first.query === "string") steps.push({ type: "message", role: "user", content: first.query });
      let finalSql: string | undefined;
      for (const c of calls) {
        const stage = typeof c.send_to === "string" && c.send_to ? c.send_to : "agent";
        const response = typeof c.response === "string" ? c.response.trim() : "";
        if (stage !== "Selector") finalSql = sqlOf(response) ?? finalSql;
        steps.push({
          type: "message",
          role: "assistant",
          content: response,
          usage: { input_tokens: Number(c.prompt_token) || 0, output_tokens: Number(c.response_token) || 0 },
          meta: {
            stage,
            prompt_chars: typeof c.input_prompt === "string" ? c.input_prompt.length : 0,
          },
        });
      }
      const evidence = typeof first.evidence === "string" && first.evidence ? first.evidence : undefined;
      const gold = typeof first.ground_truth === "string" && first.ground_truth ? first.ground_truth : undefined;
      return {
        run: { system: "MAC-SQL" },
        question: {
          id: idx,
          ...(typeof first.query === "string" ? { text: first.query } : {}),
          ...(typeof first.db_id === "string" && first.db_id ? { db_id: first.db_id } : {}),
          ...(evidence ? { evidence } : {}),
          ...(gold ? { gold_sql: gold } : {}),
        },
        steps,
        final_sql: finalSql ?? null,
        outcome: { correct: null, status: finalSql ? "submitted" : "no_submission" },
        meta: {
          source_format: "mac-sql",
          mac_sql: {
            stages: calls.map((c) => c.send_to),
            ...(typeof first.difficulty === "string" && first.difficulty ? { difficulty: first.difficulty } : {}),
          },
        },
      };
    });
    return { traces, warnings };
  },
};

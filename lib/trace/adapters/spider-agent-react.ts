/**
 * Spider-Agent's ReAct `result.json` (Spider 2.0, methods/spider-agent-lite|snow: run.py writes `{finished, steps,
 * result, result_files, Task, system_message, trajectory: [{observation, thought, action, response}]}`). Each entry is
 * one turn: the observation the agent was shown, its thought, and its action as the action class's repr —
 * `LOCAL_DB_SQL(file_path="…", command="…", output="…")`, `BIGQUERY_EXEC_SQL(sql_query="…", is_save=…, save_path="…")`,
 * `SNOWFLAKE_EXEC_SQL(…)`, `Bash(code="…")`, `CreateFile(…)`, `EditFile(…)`, `Terminate(output="…")`, `BQ_GET_TABLES`,
 * `BQ_GET_TABLE_INFO`, `BQ_SAMPLE_ROWS`, or `None` when the response held no action. Actions are parsed into tool
 * calls whose result is the next turn's observation; the SQL goes in `sql`, so roles and tables are measured as for
 * any SQL tool. The final SQL is the last query saved to a file (the answer's CSV), else the last query.
 */
import type { Adapter, AdaptedTrace, ForeignStep } from "./types";

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => Boolean(v) && typeof v === "object" && !Array.isArray(v);

export const isSpiderAgentResult = (v: unknown): boolean =>
  isObj(v) &&
  "finished" in v &&
  Array.isArray(v.trajectory) &&
  v.trajectory.every((t) => isObj(t) && "action" in t && "observation" in t);

/**
 * The reprs, as action.py writes them (f-strings: quotes inside a value are not escaped, so each pattern anchors on
 * the next keyword and the closing parenthesis, greedily).
 */
const PATTERNS: { tool: RegExp; parse: (m: RegExpMatchArray) => Json }[] = [
  {
    tool: /^LOCAL_DB_SQL\(file_path="([\s\S]*?)", command="([\s\S]*)", output="([\s\S]*?)"\)$/,
    parse: (m) => ({ file_path: m[1], sql: m[2], output: m[3] }),
  },
  {
    tool: /^(?:BIGQUERY|SNOWFLAKE)_EXEC_SQL\(sql_query="([\s\S]*)", is_save=(True|False)(?:, save_path="([\s\S]*?)")?\)$/,
    parse: (m) => ({ sql: m[1], is_save: m[2] === "True", ...(m[3] !== undefined ? { save_path: m[3] } : {}) }),
  },
  { tool: /^Bash\(code="([\s\S]*)"\)$/, parse: (m) => ({ code: m[1] }) },
  { tool: /^Terminate\(output="([\s\S]*)"\)$/, parse: (m) => ({ output: m[1] }) },
];

/** `key="value"` pairs of any other action (BQ_GET_TABLES, BQ_GET_TABLE_INFO with its `table`, BQ_SAMPLE_ROWS, …). */
function keywordArgs(body: string): Json {
  const args: Json = {};
  for (const m of body.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) args[m[1]] = m[2];
  return args;
}

/** An action's repr as a tool call: its class name and arguments (SQL under `sql`, code under `code`). */
export function parseSpiderAction(action: string): { tool: string; args: Json } | null {
  const text = action.trim();
  if (!text || text === "None") return null;
  const name = text.match(/^([A-Za-z_]+)\(/)?.[1];
  if (!name) return { tool: "unparsed_action", args: { text } };
  if (name === "CreateFile" || name === "EditFile") {
    const path = text.match(/filepath\s*=\s*["']([^"']*)["']/)?.[1];
    const code = text.match(/(?:```|''')[^\n]*\n([\s\S]*?)\n?(?:```|''')/)?.[1];
    return { tool: name, args: { filepath: path, ...(code !== undefined ? { code } : {}) } };
  }
  for (const p of PATTERNS) {
    const m = text.match(p.tool);
    if (m) return { tool: name, args: p.parse(m) };
  }
  return { tool: name, args: keywordArgs(text) };
}

const SAVED = (args: Json) =>
  (typeof args.output === "string" && !/^direct/i.test(args.output)) || args.is_save === true;

export const spiderAgentReactAdapter: Adapter = {
  format: "spider-agent-react",
  label: "Spider-Agent ReAct result.json (Spider 2.0)",
  signature: "a JSON object {finished, result, Task, trajectory: [{observation, thought, action, response}]}",
  adapt(text) {
    const data = JSON.parse(text.replace(/^\uFEFF/, "")) as Json;
    const turns = (data.trajectory as Json[]).filter(isObj);
    const warnings: { line: number; message: string }[] = [];
    const steps: ForeignStep[] = [];
    const task = typeof data.Task === "string" ? data.Task : undefined;
    if (typeof data.system_message === "string")
      steps.push({ type: "message", role: "system", content: data.system_message });
    if (task) steps.push({ type: "message", role: "user", content: task });
    let lastSql: string | undefined;
    let savedSql: string | undefined;
    turns.forEach((t, i) => {
      if (typeof t.thought === "string" && t.thought.trim()) steps.push({ type: "reasoning", content: t.thought });
      const parsed = parseSpiderAction(String(t.action ?? ""));
      const next = turns[i + 1]?.observation;
      if (!parsed) {
        steps.push({
          type: "error",
          error: "no action could be parsed from the response (Spider-Agent retried)",
          content: typeof t.response === "string" ? t.response : "",
        });
        return;
      }
      if (parsed.tool === "unparsed_action")
        warnings.push({ line: i + 1, message: "an action Metron does not know how to read" });
      if (typeof parsed.args.sql === "string") {
        lastSql = parsed.args.sql;
        if (SAVED(parsed.args)) savedSql = parsed.args.sql;
      }
      steps.push({
        type: "tool_call",
        tool: parsed.tool,
        args: parsed.args,
        // The observation the next turn was shown; the last action's (Terminate) is the run's result.
        ...(next !== undefined
          ? { result: typeof next === "string" ? next : JSON.stringify(next) }
          : parsed.tool === "Terminate" && typeof data.result === "string"
            ? { result: data.result }
            : {}),
      });
    });
    const finished = data.finished === true;
    const trace: AdaptedTrace = {
      question: { ...(task ? { text: task } : {}) },
      steps,
      final_sql: savedSql ?? lastSql ?? null,
      outcome: { correct: null, status: finished ? "submitted" : "no_submission" },
      meta: {
        source_format: "spider-agent-react",
        spider_agent: {
          finished,
          result: data.result,
          result_files: data.result_files,
          ...(savedSql
            ? { final_sql_from: "the last query saved to a file" }
            : lastSql
              ? { final_sql_from: "the last query" }
              : {}),
        },
      },
    };
    return { traces: [trace], warnings };
  },
};

/**
 * Tool-name normalisation shared by the trace format and step classification. MCP hosts prefix
 * tool names: Claude Code writes `mcp__<server>__<tool>`, OpenCode writes `<server>_<tool>`.
 */
const KNOWN_TOOLS = [
  "list_tables",
  "describe_table",
  "get_join_info",
  "read_query",
  "submit_final_query",
  "submit_sql",
  "execute_sql",
  "get_schema",
  "get_all_column_meanings",
  "get_knowledge_definition",
  "terminate",
  "GetSchema",
  "GetTableCol",
  "GetColValues",
  "FindRows",
  "SQLExecutor",
  "PythonExecutor",
  "execute_bash",
  "execute_snowflake_sql",
];

export function normalizeToolName(name: string, known: readonly string[] = KNOWN_TOOLS): string {
  const mcp = /^mcp__[^_]+(?:_[^_]+)*?__(.+)$/.exec(name);
  if (mcp) return mcp[1];
  if (known.includes(name)) return name;
  // `<server>_<tool>`: strip the shortest prefix that leaves a known tool name.
  for (let i = name.indexOf("_"); i > 0; i = name.indexOf("_", i + 1)) {
    const rest = name.slice(i + 1);
    if (known.includes(rest)) return rest;
  }
  return name;
}

const SUBMISSION_TOOLS = new Set(["submit_final_query", "submit_sql", "terminate", "submit", "submit_answer"]);

export function isSubmissionTool(name: string | undefined): boolean {
  return name !== undefined && SUBMISSION_TOOLS.has(normalizeToolName(name));
}

const SQL_ARG_KEYS = ["sql", "query", "final_query", "final_sql", "answer"];

/** The SQL a tool call carries: a known argument key, or the argument itself when it is text. */
export function sqlOfArgs(args: unknown): string | undefined {
  if (typeof args === "string") {
    try {
      return sqlOfArgs(JSON.parse(args)) ?? args;
    } catch {
      return args;
    }
  }
  if (args && typeof args === "object") {
    for (const key of SQL_ARG_KEYS) {
      const value = (args as Record<string, unknown>)[key];
      if (typeof value === "string" && value.trim()) return value;
    }
  }
  return undefined;
}

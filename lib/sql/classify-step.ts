/**
 * Step roles and the tables a step touched. Each tool maps to one role of the taxonomy in DOMAIN.md (schema
 * listing, schema exploration, data inspection, execution, submission, other), from a default mapping of the
 * seed systems' tool names that a run can override. MCP prefixes are stripped before matching.
 *
 * Exploratory call (Sophrosyne): a `describe_table` call, or a `read_query` of the form
 * `PRAGMA table_info(<table>)`; also counted: `pragma_table_info('<table>')` and reading
 * `sqlite_master`/`sqlite_schema` for one table's SQL. FlexSQL's `GetTableCol(table)`, which describes one
 * table as `describe_table` does, counts too (docs/metrics.md).
 */
import { normalizeToolName, sqlOfArgs } from "@/lib/trace/tool-names";
import { foldTable } from "./parse-tables";
import { scanTables } from "./scan-tables";

export const stepRoles = ["schema_listing", "schema_exploration", "data_inspection", "execution", "submission", "other"] as const;
export type StepRole = (typeof stepRoles)[number];
export type RoleMap = Record<string, StepRole>;

export const DEFAULT_ROLE_MAP: RoleMap = {
  list_tables: "schema_listing", GetSchema: "schema_listing", get_schema: "schema_listing",
  describe_table: "schema_exploration", GetTableCol: "schema_exploration", get_join_info: "schema_exploration", get_all_column_meanings: "schema_exploration",
  read_query: "data_inspection", GetColValues: "data_inspection", FindRows: "data_inspection",
  SQLExecutor: "execution", PythonExecutor: "execution", execute_sql: "execution", execute_snowflake_sql: "execution",
  submit_final_query: "submission", submit_sql: "submission", terminate: "submission",
};

/** Tools that describe one table named in their arguments. */
const DESCRIBE_TOOLS = new Set(["describe_table", "GetTableCol"]);
const TABLE_ARG_KEYS = ["table_name", "table", "tableName", "name"];

export interface StepClass {
  role: StepRole;
  tool: string;
  /** Tables the step touched, in the schema's spelling when it is known. */
  tables: string[];
  exploratory: boolean;
}

function tableArg(args: unknown): string | undefined {
  if (typeof args === "string") {
    try {
      return tableArg(JSON.parse(args));
    } catch {
      return args.trim() || undefined;
    }
  }
  if (args && typeof args === "object") {
    for (const k of TABLE_ARG_KEYS) {
      const v = (args as Record<string, unknown>)[k];
      if (typeof v === "string" && v.trim()) return v.trim();
    }
  }
  return undefined;
}

const unquote = (s: string) => s.replace(/^["'`[]|["'`\]]$/g, "");

/** The table of an exploratory SQL probe, or undefined when the SQL is not one. */
export function exploratoryTableOf(sql: string): string | undefined {
  if (!/pragma|sqlite_(?:master|schema)/i.test(sql)) return undefined;
  const s = sql.trim().replace(/;\s*$/, "");
  let m = /^PRAGMA\s+(?:main\.)?table_x?info\s*\(\s*(["'`[]?[^)]+?["'`\]]?)\s*\)$/i.exec(s);
  if (m) return unquote(m[1]);
  m = /\bpragma_table_x?info\s*\(\s*'((?:[^']|'')+)'\s*\)/i.exec(s);
  if (m) return m[1].replace(/''/g, "'");
  if (/\bFROM\s+(?:main\.)?sqlite_(?:master|schema)\b/i.test(s)) {
    m = /\b(?:tbl_)?name\s*=\s*'((?:[^']|'')+)'/i.exec(s) ?? /\b(?:tbl_)?name\s+LIKE\s+'((?:[^'%_]|'')+)'/i.exec(s);
    if (m) return m[1].replace(/''/g, "'");
  }
  return undefined;
}

// Tool names repeat across a run's steps: normalise each once per role map.
const normalized = new WeakMap<RoleMap, Map<string, string>>();

function toolNameIn(roles: RoleMap, tool: string): string {
  let names = normalized.get(roles);
  if (!names) normalized.set(roles, (names = new Map()));
  let name = names.get(tool);
  if (name === undefined) {
    name = normalizeToolName(tool, Object.keys(roles));
    if (names.size < 10_000) names.set(tool, name);
  }
  return name;
}

export function classifyStep(tool: string, args: unknown, roles: RoleMap = DEFAULT_ROLE_MAP, schemaTables?: readonly string[]): StepClass {
  const name = toolNameIn(roles, tool);
  const role = roles[name] ?? roles[tool] ?? "other";
  const fold = (t: string) => foldTable(t, schemaTables);
  if (DESCRIBE_TOOLS.has(name)) {
    const table = tableArg(args);
    return { role, tool: name, tables: table ? [fold(table)] : [], exploratory: table !== undefined };
  }
  if (role === "data_inspection" || role === "execution" || role === "submission") {
    const sql = sqlOfArgs(args);
    if (sql) {
      const explored = role === "submission" ? undefined : exploratoryTableOf(sql);
      if (explored) return { role, tool: name, tables: [fold(explored)], exploratory: true };
      return { role, tool: name, tables: scanTables(sql).map(fold), exploratory: false };
    }
    const table = tableArg(args);
    return { role, tool: name, tables: table ? [fold(table)] : [], exploratory: false };
  }
  return { role, tool: name, tables: [], exploratory: false };
}

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
import { extractSql } from "./extract-sql";
import { foldTable } from "./fold-table";
import { scanTables, tokenize, type Token } from "./scan-tables";

export const stepRoles = [
  "schema_listing",
  "schema_exploration",
  "data_inspection",
  "execution",
  "submission",
  "other",
] as const;
export type StepRole = (typeof stepRoles)[number];
export type RoleMap = Record<string, StepRole>;

export const DEFAULT_ROLE_MAP: RoleMap = {
  list_tables: "schema_listing",
  GetSchema: "schema_listing",
  get_schema: "schema_listing",
  describe_table: "schema_exploration",
  GetTableCol: "schema_exploration",
  get_join_info: "schema_exploration",
  get_all_column_meanings: "schema_exploration",
  read_query: "data_inspection",
  GetColValues: "data_inspection",
  FindRows: "data_inspection",
  SQLExecutor: "execution",
  PythonExecutor: "execution",
  execute_sql: "execution",
  execute_snowflake_sql: "execution",
  submit_final_query: "submission",
  submit_sql: "submission",
  terminate: "submission",
  // Spider-Agent's ReAct actions (Spider 2.0: spider_agent/agent/action.py).
  LOCAL_DB_SQL: "execution",
  BIGQUERY_EXEC_SQL: "execution",
  SNOWFLAKE_EXEC_SQL: "execution",
  BQ_GET_TABLES: "schema_listing",
  BQ_GET_TABLE_INFO: "schema_exploration",
  BQ_SAMPLE_ROWS: "data_inspection",
  Terminate: "submission",
  // BIRD-Interact's environment actions (batch_run_bird_interact/action_handler.py).
  execute: "execution",
  submit: "submission",
  get_column_meaning: "schema_exploration",
};

/** Tools that describe one table named in their arguments. */
const DESCRIBE_TOOLS = new Set(["describe_table", "GetTableCol", "BQ_GET_TABLE_INFO"]);
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

const isName = (t: Token | undefined) =>
  t !== undefined && (t.kind === "word" || t.kind === "ident" || t.kind === "string");
const isWord = (t: Token | undefined, ...words: string[]) => t?.kind === "word" && words.includes(t.text.toLowerCase());

/**
 * The table of an exploratory SQL probe, or undefined when the SQL is not one. Read from SQLite's tokens, so
 * every spelling SQLite accepts counts: any case, any quoting, a schema prefix (`PRAGMA "main".table_info(t)`),
 * the `PRAGMA table_info = t` form, leading comments and semicolons, `pragma_table_info(t, 'main')`,
 * `table_xinfo`, and `sqlite_master`/`sqlite_schema` filtered on one table's name.
 */
export function exploratoryTableOf(sql: string): string | undefined {
  if (!/pragma|sqlite_(?:master|schema)/i.test(sql)) return undefined;
  const tokens = tokenize(sql);
  let a = 0;
  let b = tokens.length;
  while (a < b && tokens[a].text === ";") a++;
  while (b > a && tokens[b - 1].text === ";") b--;
  const t = tokens.slice(a, b);
  if (isWord(t[0], "pragma")) {
    let i = 1;
    if (isName(t[i]) && t[i + 1]?.text === ".") i += 2; // schema prefix
    if (!isWord(t[i], "table_info", "table_xinfo")) return undefined;
    i++;
    if (t[i]?.text === "(" && isName(t[i + 1]) && t[i + 2]?.text === ")" && i + 3 === t.length) return t[i + 1].text;
    if (t[i]?.text === "=" && isName(t[i + 1]) && i + 2 === t.length) return t[i + 1].text;
    return undefined;
  }
  for (let i = 0; i < t.length - 2; i++) {
    if (isWord(t[i], "pragma_table_info", "pragma_table_xinfo") && t[i + 1].text === "(" && isName(t[i + 2]))
      return t[i + 2].text;
  }
  const from = t.findIndex(
    (x, i) =>
      isWord(x, "from") &&
      (isSchemaTable(t[i + 1]) || (isName(t[i + 1]) && t[i + 2]?.text === "." && isSchemaTable(t[i + 3]))),
  );
  if (from === -1) return undefined;
  for (let i = from; i < t.length - 2; i++) {
    if (!isWord(t[i], "name", "tbl_name")) continue;
    const op = t[i + 1];
    const value = t[i + 2];
    if ((op.text === "=" || isWord(op, "like", "is")) && (value.kind === "string" || value.kind === "ident")) {
      if (isWord(op, "like") && /[%_]/.test(value.text)) continue;
      return value.text;
    }
    if (op.text === "=" && t[i + 2]?.text === "=" && (t[i + 3]?.kind === "string" || t[i + 3]?.kind === "ident"))
      return t[i + 3].text;
  }
  return undefined;
}

const isSchemaTable = (t: Token | undefined) =>
  (t?.kind === "word" || t?.kind === "ident") && /^sqlite_(?:temp_)?(?:master|schema)$/i.test(t.text);

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

/**
 * What a SQL text's scan found, per distinct text: agents send the same probes again and again (within a trace,
 * across samples and questions), and a scan is pure. Bounded: cleared when full; long texts are not kept.
 */
const scans = new Map<string, { explored?: string; tables?: string[] }>();
const SCAN_CACHE_ENTRIES = 20_000;
const SCAN_CACHE_MAX_CHARS = 4_000;

function scanOf(sql: string): { explored?: string; tables?: string[] } {
  if (sql.length > SCAN_CACHE_MAX_CHARS) return {};
  let known = scans.get(sql);
  if (!known) {
    if (scans.size >= SCAN_CACHE_ENTRIES) scans.clear();
    scans.set(sql, (known = {}));
  }
  return known;
}

export function classifyStep(
  tool: string,
  args: unknown,
  roles: RoleMap = DEFAULT_ROLE_MAP,
  schemaTables?: readonly string[],
): StepClass {
  const name = toolNameIn(roles, tool);
  const role = roles[name] ?? roles[tool] ?? "other";
  const fold = (t: string) => foldTable(t, schemaTables);
  if (DESCRIBE_TOOLS.has(name)) {
    // Without a table argument it is still an exploratory call, on a table nobody can name (DOMAIN.md).
    const table = tableArg(args);
    return { role, tool: name, tables: table ? [fold(table)] : [], exploratory: true };
  }
  if (role === "data_inspection" || role === "execution" || role === "submission") {
    const raw = sqlOfArgs(args);
    const sql = raw === undefined ? undefined : extractSql(raw).sql;
    if (sql) {
      const known = scanOf(sql);
      const explored = role === "submission" ? undefined : (known.explored ??= exploratoryTableOf(sql) ?? "");
      if (explored) return { role, tool: name, tables: [fold(explored)], exploratory: true };
      return { role, tool: name, tables: (known.tables ??= scanTables(sql)).map(fold), exploratory: false };
    }
    const table = tableArg(args);
    return { role, tool: name, tables: table ? [fold(table)] : [], exploratory: false };
  }
  return { role, tool: name, tables: [], exploratory: false };
}

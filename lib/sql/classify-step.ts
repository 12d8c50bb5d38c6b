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

/** A table name as an agent quoted it (`"t"`, `'t'`, `` `t` ``, `[t]`): the name SQLite reads (issue 30). */
function unquotedName(name: string): string {
  const t = name.trim();
  const m = /^(?:"((?:[^"]|"")+)"|'((?:[^']|'')+)'|`((?:[^`]|``)+)`|\[([^\]]+)\])$/.exec(t);
  if (!m) return t;
  if (m[1] !== undefined) return m[1].replace(/""/g, '"');
  if (m[2] !== undefined) return m[2].replace(/''/g, "'");
  if (m[3] !== undefined) return m[3].replace(/``/g, "`");
  return m[4];
}

function tableArg(args: unknown): string | undefined {
  if (typeof args === "string") {
    try {
      return tableArg(JSON.parse(args));
    } catch {
      return args.trim() ? unquotedName(args) : undefined;
    }
  }
  if (args && typeof args === "object") {
    for (const k of TABLE_ARG_KEYS) {
      const v = (args as Record<string, unknown>)[k];
      if (typeof v === "string" && v.trim()) return unquotedName(v);
    }
  }
  return undefined;
}

const isName = (t: Token | undefined) =>
  t !== undefined && (t.kind === "word" || t.kind === "ident" || t.kind === "string");
const isWord = (t: Token | undefined, ...words: string[]) => t?.kind === "word" && words.includes(t.text.toLowerCase());

/**
 * How a probe of `sqlite_master` is read against the question's database: the names of the tables whose schema
 * rows its filter selects, as SQLite itself evaluates it (`SELECT DISTINCT tbl_name FROM sqlite_master [alias]
 * WHERE <the probe's filter>`), or undefined when it cannot say (no database, an error). lib/ingest/measure.ts gives
 * one; the filter is only sent when it holds no subquery and calls only plain string functions (bounded work).
 */
export type SchemaRowsOf = (alias: string | undefined, where: string) => string[] | undefined;

/** Functions a schema filter may call and still be evaluated against the database. */
const PLAIN_FUNCTIONS = new Set([
  "lower",
  "upper",
  "trim",
  "ltrim",
  "rtrim",
  "substr",
  "substring",
  "instr",
  "length",
  "coalesce",
  "ifnull",
  "like",
  "glob",
  "in",
  "not",
  "and",
  "or",
  "is",
]);
const CLAUSE_END = new Set(["group", "order", "limit", "union", "except", "intersect", "window", "having"]);
const NAME_COLUMNS = new Set(["name", "tbl_name"]);

/** The values a filter compares a name column with, on either side: `=`, `==`, `IS`, `LIKE` without wildcards, `IN`. */
function namesCompared(w: Token[]): string[] {
  const out: string[] = [];
  const isColumn = (i: number) =>
    (w[i]?.kind === "word" || w[i]?.kind === "ident") &&
    NAME_COLUMNS.has(w[i].text.toLowerCase()) &&
    // `m.name`: the column of an alias, not a table called name.
    !(w[i + 1]?.text === ".");
  // A double-quoted word that names no column is a string to SQLite (`name = "concert"`).
  const isValue = (t: Token | undefined) =>
    t?.kind === "string" || (t?.kind === "ident" && !NAME_COLUMNS.has(t.text.toLowerCase()));
  const isOp = (t: Token | undefined) => t?.text === "=" || isWord(t, "is", "like");
  for (let i = 0; i < w.length; i++) {
    if (!isColumn(i)) continue;
    let j = i + 1;
    if (w[j]?.text === "=" && w[j + 1]?.text === "=") j++; // ==
    if (isOp(w[j]) && isValue(w[j + 1])) {
      if (!(isWord(w[j], "like") && /[%_]/.test(w[j + 1].text))) out.push(w[j + 1].text);
    } else if (isWord(w[j], "in") && w[j + 1]?.text === "(") {
      for (let k = j + 2; k < w.length && w[k].text !== ")"; k++) if (isValue(w[k])) out.push(w[k].text);
    }
    // The reversed comparison: 't' = name.
    const before = w[i - 1]?.text === "=" && w[i - 2]?.text === "=" ? i - 2 : i - 1;
    if ((w[before]?.text === "=" || isWord(w[before], "is")) && isValue(w[before - 1])) out.push(w[before - 1].text);
  }
  return out;
}

/**
 * The tables of an exploratory SQL probe, or undefined when the SQL is not one. Read from SQLite's tokens, so
 * every spelling SQLite accepts counts: any case, any quoting, a schema prefix (`PRAGMA "main".table_info(t)`),
 * the `PRAGMA table_info = t` form, leading comments and semicolons, `pragma_table_info(t, 'main')`,
 * `table_xinfo`, and `sqlite_master`/`sqlite_schema` filtered on table names. A `sqlite_master` probe counts the
 * tables whose schema rows it reads (issue 30): with the question's database, as SQLite evaluates its filter
 * (`schemaRowsOf`); without it, every name its filter compares a name column with (quoted columns, reversed
 * comparisons, `OR` and `IN` lists alike). A probe whose filter names no name column (`type = 'table'`) reads every
 * table's row: a listing, not an exploration.
 */
export function exploratoryTablesOf(sql: string, schemaRowsOf?: SchemaRowsOf): string[] | undefined {
  if (!/pragma|sqlite_(?:temp_)?(?:master|schema)/i.test(sql)) return undefined;
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
    if (t[i]?.text === "(" && isName(t[i + 1]) && t[i + 2]?.text === ")" && i + 3 === t.length) return [t[i + 1].text];
    if (t[i]?.text === "=" && isName(t[i + 1]) && i + 2 === t.length) return [t[i + 1].text];
    return undefined;
  }
  const pragmas: string[] = [];
  for (let i = 0; i < t.length - 2; i++)
    if (isWord(t[i], "pragma_table_info", "pragma_table_xinfo") && t[i + 1].text === "(" && isName(t[i + 2]))
      pragmas.push(t[i + 2].text);
  if (pragmas.length) return [...new Set(pragmas)];
  const from = t.findIndex(
    (x, i) =>
      isWord(x, "from") &&
      (isSchemaTable(t[i + 1]) || (isName(t[i + 1]) && t[i + 2]?.text === "." && isSchemaTable(t[i + 3]))),
  );
  if (from === -1) return undefined;
  let at = isSchemaTable(t[from + 1]) ? from + 2 : from + 4;
  if (isWord(t[at], "as")) at++;
  const alias = t[at]?.kind === "word" && !isWord(t[at], "where", ...CLAUSE_END) ? t[at].text : undefined;
  if (alias) at++;
  if (!isWord(t[at], "where")) return undefined; // every schema row: a listing
  // The filter, up to the end of its clause at depth 0.
  let end = at + 1;
  for (let depth = 0; end < t.length; end++) {
    if (t[end].text === "(") depth++;
    else if (t[end].text === ")") {
      if (depth === 0) break;
      depth--;
    } else if (depth === 0 && (isWord(t[end], ...CLAUSE_END) || t[end].text === ";")) break;
  }
  const w = t.slice(at + 1, end);
  // A filter on no name column (`type = 'table'`) reads every table's row: a listing.
  if (!w.some((x) => (x.kind === "word" || x.kind === "ident") && NAME_COLUMNS.has(x.text.toLowerCase())))
    return undefined;
  // Sent to SQLite only when it reads nothing but sqlite_master's rows: no subquery, no `IN other_table` (SQLite
  // reads a table named there), only plain string functions, and no multi-statement text.
  const plain = w.every(
    (x, i) =>
      !isWord(x, "select", "with", "recursive", "values") &&
      x.text !== ";" &&
      !(isWord(x, "in") && w[i + 1] !== undefined && w[i + 1].text !== "(") &&
      !(x.kind === "word" && w[i + 1]?.text === "(" && !PLAIN_FUNCTIONS.has(x.text.toLowerCase())),
  );
  if (schemaRowsOf && plain && w[0].start !== undefined && w.at(-1)!.end !== undefined) {
    const read = schemaRowsOf(alias, sql.slice(w[0].start, w.at(-1)!.end));
    if (read) {
      const tables = read.filter((n) => !/^sqlite_/i.test(n));
      // Reading every table's row is listing the schema, as without a filter.
      return tables.length ? tables : undefined;
    }
  }
  const named = [...new Set(namesCompared(w))];
  return named.length ? named : undefined;
}

/** The first table of `exploratoryTablesOf` (the common one-table probe). */
export function exploratoryTableOf(sql: string): string | undefined {
  return exploratoryTablesOf(sql)?.[0];
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
const scans = new Map<string, { explored?: string[]; tables?: string[] }>();
const SCAN_CACHE_ENTRIES = 20_000;
const SCAN_CACHE_MAX_CHARS = 4_000;

function scanOf(sql: string): { explored?: string[]; tables?: string[] } {
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
  schemaRowsOf?: SchemaRowsOf,
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
      // Read against the database, a probe's tables depend on it: not cached across databases.
      const explored =
        role === "submission"
          ? undefined
          : schemaRowsOf
            ? exploratoryTablesOf(sql, schemaRowsOf)
            : (known.explored ??= exploratoryTablesOf(sql) ?? []);
      if (explored?.length) return { role, tool: name, tables: [...new Set(explored.map(fold))], exploratory: true };
      return { role, tool: name, tables: (known.tables ??= scanTables(sql)).map(fold), exploratory: false };
    }
    const table = tableArg(args);
    return { role, tool: name, tables: table ? [fold(table)] : [], exploratory: false };
  }
  return { role, tool: name, tables: [], exploratory: false };
}

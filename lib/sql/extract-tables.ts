/**
 * The distinct tables a SQL query reads ("gold tables" when it is the gold SQL).
 *
 * With a database at hand we ask SQLite itself: `EXPLAIN` the statement against the read-only schema and map
 * every cursor opened on a b-tree (OpenRead/OpenWrite, p2 = root page, p3 = 0 for main) to its table through
 * `sqlite_schema` (an index maps to its table). SQLite expands views into their tables, and its optimiser may
 * drop a table that no output depends on (an unused LEFT JOIN), so the view names and the FROM/JOIN targets
 * that exist in the schema are added (scan-tables.ts). Without a database, node-sql-parser (parse-tables.ts);
 * at ingest, where a trace's SQL is measured before its dataset may be imported, the faster scan
 * (agreement with EXPLAIN on BIRD mini-dev gold: scan 242/242, parser 240/242). Every answer says its method.
 */
import type Database from "better-sqlite3";
import { prepareLegacy } from "./legacy-dqs";
import { foldTable, parseTables } from "./parse-tables";
import { scanTables } from "./scan-tables";

export type TableMethod = "explain" | "parser" | "scan";

export type TablesResult =
  { ok: true; tables: string[]; method: TableMethod } | { ok: false; error: string; method: TableMethod };

interface SchemaMap {
  tables: string[];
  views: Set<string>;
  byRootPage: Map<number, string>;
}

const schemaCache = new WeakMap<Database.Database, SchemaMap>();

export function readSchemaMap(db: Database.Database): SchemaMap {
  let map = schemaCache.get(db);
  if (map) return map;
  const rows = db.prepare("SELECT type, name, tbl_name AS tbl, rootpage FROM sqlite_schema").all() as {
    type: string;
    name: string;
    tbl: string;
    rootpage: number | null;
  }[];
  map = { tables: [], views: new Set(), byRootPage: new Map() };
  for (const r of rows) {
    if (r.type === "table" && !r.name.startsWith("sqlite_")) map.tables.push(r.name);
    if (r.type === "view") {
      map.views.add(r.name);
      map.tables.push(r.name);
    }
    if ((r.type === "table" || r.type === "index") && r.rootpage) map.byRootPage.set(r.rootpage, r.tbl);
  }
  schemaCache.set(db, map);
  return map;
}

function explainTables(db: Database.Database, sql: string, schema: SchemaMap): { tables: Set<string>; sql: string } {
  const { statement, sql: ran } = prepareLegacy(db, sql.trim().replace(/;\s*$/, ""), "EXPLAIN ");
  const tables = new Set<string>();
  for (const op of statement.all() as { opcode: string; p2: number; p3: number }[]) {
    if ((op.opcode === "OpenRead" || op.opcode === "OpenWrite" || op.opcode === "ReopenIdx") && op.p3 === 0) {
      const table = schema.byRootPage.get(op.p2);
      if (table && !table.startsWith("sqlite_")) tables.add(table);
    }
  }
  return { tables, sql: ran };
}

/**
 * Tables of `sql`: through EXPLAIN when `db` is given, else the parser (or the scan). When SQLite refuses the
 * statement, a final SQL still names its tables (the fallback method reads them), but a gold SQL that does not
 * compile has unknown gold tables: pass `onRefusal: "fail"` for gold SQL.
 */
export function extractTables(
  sql: string,
  db?: Database.Database,
  schemaTables?: readonly string[],
  fallbackMethod: "parser" | "scan" = "parser",
  onRefusal: "fallback" | "fail" = "fallback",
): TablesResult {
  if (db) {
    const schema = readSchemaMap(db);
    try {
      const { tables, sql: ran } = explainTables(db, sql, schema);
      for (const t of scanTables(ran)) {
        const folded = foldTable(t, schema.tables);
        if (schema.tables.includes(folded)) tables.add(folded);
      }
      return { ok: true, tables: sortTables(tables), method: "explain" };
    } catch (e) {
      if (onRefusal === "fail") return { ok: false, error: (e as Error).message, method: "explain" };
      const fallback = withoutDatabase(sql, schema.tables, fallbackMethod);
      return fallback.ok ? fallback : { ok: false, error: (e as Error).message, method: "explain" };
    }
  }
  return withoutDatabase(sql, schemaTables, fallbackMethod);
}

function withoutDatabase(
  sql: string,
  schemaTables: readonly string[] | undefined,
  method: "parser" | "scan",
): TablesResult {
  if (method === "parser") return extractTablesWithParser(sql, schemaTables);
  const tables = scanTables(sql).map((t) => foldTable(t, schemaTables));
  return { ok: true, tables: sortTables(new Set(tables)), method: "scan" };
}

export function extractTablesWithParser(sql: string, schemaTables?: readonly string[]): TablesResult {
  try {
    return { ok: true, tables: sortTables(parseTables(sql, schemaTables)), method: "parser" };
  } catch (e) {
    return { ok: false, error: `cannot parse: ${(e as Error).message.split("\n")[0].slice(0, 200)}`, method: "parser" };
  }
}

function sortTables(tables: Iterable<string>): string[] {
  return [...tables].sort((a, b) => a.localeCompare(b));
}

export { foldTable };

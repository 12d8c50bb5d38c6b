import Database from "better-sqlite3";
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { extractTables } from "@/lib/sql/extract-tables";
import { UsageError } from "./args";

export async function runSqlCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "tables") throw new UsageError(`unknown sql command "${sub ?? ""}" (try: sql tables)`);
  const { values } = parseArgs({
    args: rest,
    options: {
      db: { type: "string" },
      sql: { type: "string" },
      method: { type: "string", default: "scan" },
      json: { type: "boolean", default: false },
    },
  });
  if (values.method !== "scan" && values.method !== "parser")
    throw new UsageError("--method must be scan or parser (used without --db)");
  if (!values.sql) throw new UsageError('--sql "…" is required');
  if (values.db && !existsSync(values.db)) throw new UsageError(`no such database file: ${values.db}`);
  const db = values.db ? new Database(values.db, { readonly: true, fileMustExist: true }) : undefined;
  try {
    // Without a database: the fast scan (agrees with EXPLAIN on every BIRD mini-dev and Spider-de gold query), or the parser.
    const r = extractTables(values.sql, db, undefined, values.method as "scan" | "parser");
    if (values.json)
      console.log(JSON.stringify(r.ok ? { tables: r.tables, method: r.method } : { error: r.error, method: r.method }));
    else console.log(r.ok ? `${r.tables.join(", ") || "(no tables)"}   [${r.method}]` : `error: ${r.error}`);
    return r.ok ? 0 : 1;
  } finally {
    db?.close();
  }
}

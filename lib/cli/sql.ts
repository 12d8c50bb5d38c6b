import Database from "better-sqlite3";
import { createReadStream, existsSync } from "node:fs";
import { createInterface } from "node:readline";
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
      file: { type: "string" },
      method: { type: "string", default: "scan" },
      json: { type: "boolean", default: false },
    },
  });
  if (values.method !== "scan" && values.method !== "parser")
    throw new UsageError("--method must be scan or parser (used without --db)");
  if (!values.sql && !values.file) throw new UsageError('--sql "…" or --file queries.jsonl is required');
  if (values.sql && values.file) throw new UsageError("give --sql or --file, not both");
  if (values.file && !existsSync(values.file)) throw new Error(`no such file: ${values.file}`); // not a misuse: no usage text
  if (values.db && !existsSync(values.db)) throw new Error(`no such database file: ${values.db}`);
  const db = values.db ? new Database(values.db, { readonly: true, fileMustExist: true }) : undefined;
  try {
    const method = values.method as "scan" | "parser";
    if (values.file) return await tablesOfFile(values.file, db, method, values.json);
    // Without a database: the fast scan (agrees with EXPLAIN on every BIRD mini-dev and Spider-de gold query), or the parser.
    const r = extractTables(values.sql!, db, undefined, method);
    if (values.json)
      console.log(JSON.stringify(r.ok ? { tables: r.tables, method: r.method } : { error: r.error, method: r.method }));
    else console.log(r.ok ? `${r.tables.join(", ") || "(no tables)"}   [${r.method}]` : `error: ${r.error}`);
    return r.ok ? 0 : 1;
  } finally {
    db?.close();
  }
}

/**
 * One query per line — a JSON string, or `{"sql"|"query": …, "id": …}` — and one result per line, in order, for
 * scripts that would otherwise start the CLI once per query. A bad line is a result with its error, not a stop.
 */
async function tablesOfFile(
  file: string,
  db: Database.Database | undefined,
  method: "scan" | "parser",
  json: boolean,
): Promise<number> {
  let lineNo = 0;
  let failed = 0;
  const out: string[] = [];
  const flush = () => {
    if (out.length) process.stdout.write(out.join("\n") + "\n");
    out.length = 0;
  };
  for await (const line of createInterface({ input: createReadStream(file), crlfDelay: Infinity })) {
    lineNo++;
    if (!line.trim()) continue;
    let sql: unknown;
    let id: unknown = lineNo;
    try {
      const v = JSON.parse(line) as unknown;
      if (typeof v === "string") sql = v;
      else if (v && typeof v === "object") {
        const o = v as Record<string, unknown>;
        sql = o.sql ?? o.query;
        id = o.id ?? lineNo;
      }
    } catch (e) {
      failed++;
      out.push(
        json
          ? JSON.stringify({ line: lineNo, error: `invalid JSON: ${(e as Error).message}` })
          : `${lineNo}\terror: invalid JSON`,
      );
      continue;
    }
    if (typeof sql !== "string") {
      failed++;
      out.push(
        json ? JSON.stringify({ line: lineNo, id, error: 'no "sql" or "query" string' }) : `${lineNo}\terror: no sql`,
      );
      continue;
    }
    const r = extractTables(sql, db, undefined, method);
    if (!r.ok) failed++;
    out.push(
      json
        ? JSON.stringify(r.ok ? { id, tables: r.tables, method: r.method } : { id, error: r.error, method: r.method })
        : `${String(id)}\t${r.ok ? r.tables.join(", ") || "(no tables)" : `error: ${r.error}`}`,
    );
    if (out.length >= 1000) flush();
  }
  flush();
  return failed ? 1 : 0;
}

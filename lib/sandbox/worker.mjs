// The sandbox's worker process: compiles and runs one read-only statement at a time and returns at most maxRows
// rows and maxBytes bytes. Plain JavaScript, so it runs as a child process of the CLI and of the Next server alike
// (it is never bundled). The parent starts it under an address-space limit (ulimit -v), so a query that builds a
// huge value fails here with "out of memory" instead of growing the server, and kills it (SIGKILL) at the time
// limit: a runaway query cannot outlive its limit, inside SQLite or out.
import Database from "better-sqlite3";
import { checkStatement } from "./check.mjs";

const connections = new Map();

function open(path) {
  let db = connections.get(path);
  if (!db) {
    db = new Database(path, { readonly: true, fileMustExist: true });
    db.pragma("query_only = 1");
    connections.set(path, db);
  }
  return db;
}

function sizeOf(v) {
  if (v === null) return 1;
  if (typeof v === "string") return Buffer.byteLength(v);
  if (typeof v === "number" || typeof v === "bigint") return 8;
  return v.byteLength ?? 8;
}

function run({ path, sql, maxRows, maxBytes, maxValueBytes, compileOnly }) {
  const checked = checkStatement(open(path), sql);
  if (!checked.ok) return checked;
  if (compileOnly) return { ok: true, sql: checked.sql, columns: [], rows: [], truncated: false };
  const statement = checked.statement;
  if (!statement.reader) return { ok: true, sql: checked.sql, columns: [], rows: [], truncated: false };
  statement.raw(true);
  const rows = [];
  let bytes = 0;
  let truncated = false;
  for (const row of statement.iterate()) {
    if (rows.length >= maxRows) {
      truncated = true;
      break;
    }
    for (const v of row) {
      const size = sizeOf(v);
      if (size > maxValueBytes)
        return {
          ok: false,
          kind: "limit",
          sql: checked.sql,
          error: `a value of ${size} bytes is over the limit of ${maxValueBytes} bytes per value (METRON_SQL_MAX_VALUE_BYTES)`,
        };
      bytes += size;
    }
    if (bytes > maxBytes)
      return {
        ok: false,
        kind: "limit",
        sql: checked.sql,
        error: `the result is over the limit of ${maxBytes} bytes (METRON_SQL_MAX_RESULT_BYTES) after ${rows.length} rows`,
      };
    rows.push(row);
  }
  return { ok: true, sql: checked.sql, columns: statement.columns().map((c) => c.name), rows, truncated };
}

process.on("message", (task) => {
  let reply;
  try {
    reply = run(task);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    reply = {
      ok: false,
      kind: /out of memory|too big/i.test(message) ? "limit" : "error",
      sql: task.sql,
      error: /out of memory/i.test(message)
        ? `out of memory: the query needs more than the sandbox's ${process.env.METRON_SANDBOX_MEMORY_MB ?? "?"} MB (METRON_SQL_MEMORY_MB)`
        : message,
    };
  }
  delete reply.statement;
  process.send({ id: task.id, ...reply });
});

// The sandbox's worker: runs one already-checked read-only statement and returns at most maxRows rows.
// Plain JavaScript so that it runs as a worker thread in the CLI and in the Next server alike (it is never
// bundled). The parent terminates this thread at the time limit: a runaway query cannot outlive it.
import Database from "better-sqlite3";
import { parentPort } from "node:worker_threads";

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

parentPort.on("message", ({ id, path, sql, maxRows }) => {
  try {
    const statement = open(path).prepare(sql);
    if (!statement.readonly) throw new Error("refused: only read-only statements run here");
    if (!statement.reader) {
      parentPort.postMessage({ id, columns: [], rows: [], truncated: false });
      return;
    }
    statement.raw(true);
    const rows = [];
    let truncated = false;
    for (const row of statement.iterate()) {
      if (rows.length >= maxRows) {
        truncated = true;
        break;
      }
      rows.push(row);
    }
    parentPort.postMessage({ id, columns: statement.columns().map((c) => c.name), rows, truncated });
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});

/**
 * `PRAGMA quick_check` of a store file, in a worker thread (lib/db/health.ts). The check reads the whole file — two
 * minutes for a 3.5 GB store when it is not in the page cache — and a server that ran it on its own thread answered
 * nothing until it ended. Plain JavaScript, loaded from disk, as the sandbox's worker is.
 */
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

let db;
try {
  db = new Database(workerData.file, { readonly: true, fileMustExist: true });
  const rows = db.pragma(`quick_check(${Number(workerData.max) || 5})`);
  parentPort.postMessage({ messages: rows.map((r) => r.quick_check) });
} catch (e) {
  parentPort.postMessage({ error: { message: e.message, code: e.code ?? "" } });
} finally {
  db?.close();
}

/**
 * `PRAGMA quick_check` of a store file, in a process of its own (lib/db/health.ts): `node quick-check-worker.mjs FILE`
 * prints `{"messages": [...]}` or `{"error": {"message", "code"}}`. The check reads the whole file — two minutes for a
 * 3.5 GB store when it is not in the page cache — and a server that ran it on its own thread answered nothing until
 * it ended; in a worker thread, the server could not exit until it ended (a native call is not interrupted). A
 * process is killed when the server exits. Plain JavaScript, loaded from disk, as the sandbox's worker is.
 */
import Database from "better-sqlite3";

let db;
let out;
try {
  db = new Database(process.argv[2], { readonly: true, fileMustExist: true });
  out = { messages: db.pragma("quick_check(5)").map((r) => r.quick_check) };
} catch (e) {
  out = { error: { message: e.message, code: e.code ?? "" } };
} finally {
  db?.close();
}
process.stdout.write(JSON.stringify(out));

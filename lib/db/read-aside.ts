/**
 * Long read-only statements of the SQLite store run aside, on a read-only connection of a worker thread, so that the
 * server's event loop answers other requests meanwhile (issue 36). better-sqlite3 runs a statement synchronously: an
 * Experiments cell's aggregates over 80,000 traces (a 1M-trace store) held the event loop for about a second, and
 * every page request that arrived waited. PostgreSQL's statements are asynchronous already: there, and for an
 * in-memory store, a connection inside a transaction (its uncommitted rows are visible to it alone) or a worker that
 * failed, the statement runs as `many` runs it.
 *
 * The worker reads what was committed, as the store's own connection does outside a transaction. Its code is inline
 * (no file to bundle) and loads better-sqlite3 from the project's root (METRON_ROOT, else the working directory), as
 * the search index's document reader does (lib/search/document-reader.ts). One worker per store file, ended after
 * `IDLE_MS` without a statement; it never holds the process open.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { positiveNumber } from "@/lib/config/env";
import type { Param, Sql } from "./sql";
import { compile, many, type Query } from "./typed";

const IDLE_MS = 30_000;

const CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const { statSync } = require("node:fs");
const Database = require(workerData.module);
let db = null;
let opened = "";
let statements = new Map();
parentPort.on("message", (m) => {
  try {
    // The file at this path, opened again if another file took its place (a store restored or replaced).
    const st = statSync(workerData.file);
    const id = st.dev + ":" + st.ino;
    if (id !== opened) {
      if (db) db.close();
      db = new Database(workerData.file, { readonly: true, fileMustExist: true });
      db.pragma("busy_timeout = " + workerData.busyTimeoutMs);
      opened = id;
      statements = new Map();
    }
    let statement = statements.get(m.text);
    if (!statement) {
      statement = db.prepare(m.text);
      if (statements.size >= 100) statements.clear();
      statements.set(m.text, statement);
    }
    parentPort.postMessage({ n: m.n, rows: statement.all(...m.params) });
  } catch (e) {
    parentPort.postMessage({ n: m.n, error: String((e && e.message) || e) });
  }
});
`;

/** A statement's failure in SQLite (given to the caller), as against the worker's own (the caller reads in-thread). */
class StatementError extends Error {}

interface Aside {
  all(text: string, params: readonly Param[]): Promise<unknown[]>;
}

const g = globalThis as unknown as { metronReadAside?: Map<string, Aside>; metronReadAsideFailed?: Set<string> };
const workers = (g.metronReadAside ??= new Map());
/** Store files whose worker could not start or died: read in-thread from then on (the failure is logged once). */
const failed = (g.metronReadAsideFailed ??= new Set());

function startAside(file: string): Aside {
  const root = process.env.METRON_ROOT ?? process.cwd();
  const worker = new Worker(CODE, {
    eval: true,
    workerData: {
      module: createRequire(path.join(root, "package.json")).resolve("better-sqlite3"),
      // SQLite's small page cache and no memory map (unlike the pages' connection, lib/db/client.ts `getDb`): a
      // worker started again after its idle time faulted a map's pages in anew, and the Experiments views of a
      // 200k-trace store took 1.7–2.3 s instead of 1.3–1.5 s.
      file,
      // As the store's other connections wait (lib/db/client.ts): a reader meets a lock now and then in WAL mode (a
      // checkpoint that truncates the log, the log's recovery after a crash), and without a wait it failed the page.
      busyTimeoutMs: positiveNumber("METRON_BUSY_TIMEOUT_MS", 300_000),
    },
  });
  const waiting = new Map<number, { resolve: (rows: unknown[]) => void; reject: (e: Error) => void }>();
  let next = 0;
  let idle: NodeJS.Timeout | null = null;
  // An awaited statement keeps the process alive until it is answered; an idle worker never does (a `metron` command
  // exits when its work is done: with the worker left referenced, `metron evaluate` did not exit).
  const settle = () => {
    if (idle) clearTimeout(idle);
    idle = null;
    if (waiting.size) return;
    worker.unref();
    idle = setTimeout(() => void worker.terminate(), IDLE_MS).unref();
  };
  const gone = (e: Error) => {
    if (workers.get(file) === aside) workers.delete(file);
    if (idle) clearTimeout(idle);
    for (const w of waiting.values()) w.reject(e);
    waiting.clear();
  };
  worker.on("message", (m: { n: number; rows?: unknown[]; error?: string }) => {
    const w = waiting.get(m.n);
    waiting.delete(m.n);
    settle();
    if (!w) return;
    if (m.error !== undefined) w.reject(new StatementError(m.error));
    else w.resolve(m.rows!);
  });
  worker.on("error", (e: unknown) => {
    if (!failed.has(file)) console.warn(`metron: statements read aside, in-thread from now on: ${String(e)}`);
    failed.add(file);
    gone(e instanceof Error ? e : new Error(String(e)));
  });
  worker.on("exit", (code) => gone(new Error(`the reader aside exited (${code})`)));
  const aside: Aside = {
    all: (text, params) =>
      new Promise<unknown[]>((resolve, reject) => {
        const n = next++;
        waiting.set(n, { resolve, reject });
        if (waiting.size === 1) worker.ref();
        settle();
        worker.postMessage({ n, text, params: params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p)) });
      }),
  };
  settle();
  return aside;
}

/** Whether `manyAside` runs a statement on this store aside (a SQLite file, outside a transaction, its worker alive). */
export function readsAside(sql: Sql): boolean {
  const db = sql.connection;
  return Boolean(db && !db.memory && db.name && !db.inTransaction && !failed.has(db.name));
}

/** The rows of a built read-only query, read aside where it can be (see the header), else as `many` reads them. */
export async function manyAside<R>(sql: Sql, query: Query<R>): Promise<R[]> {
  const db = sql.connection;
  if (!db || !readsAside(sql)) return many(sql, query);
  let aside = workers.get(db.name);
  if (!aside) {
    try {
      aside = startAside(db.name);
    } catch (e) {
      failed.add(db.name);
      console.warn(`metron: statements read aside, in-thread from now on: ${(e as Error).message}`);
      return many(sql, query);
    }
    workers.set(db.name, aside);
  }
  const { sql: text, parameters } = compile(sql, query);
  try {
    return (await aside.all(text, parameters as readonly Param[])) as R[];
  } catch (e) {
    if (e instanceof StatementError) throw e;
    return many(sql, query); // the worker ended (idle, or failed) before it answered
  }
}

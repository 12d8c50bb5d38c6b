/**
 * The read-only SQL sandbox every query Metron runs goes through. A statement is first compiled on the main
 * thread against the database opened read-only with `query_only`: SQLite's legacy double-quoted strings are
 * emulated (legacy-dqs.ts), statements SQLite does not report read-only are refused, and so are ATTACH,
 * DETACH and VACUUM (ATTACH counts as read-only to SQLite). It then runs in a worker thread with a row cap;
 * the worker is terminated at the time limit and replaced.
 */
import Database from "better-sqlite3";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { prepareLegacy } from "@/lib/sql/legacy-dqs";
import { sandboxLimits } from "./limits";

export type SqlValue = string | number | bigint | null | Uint8Array;

export type QueryResult =
  | { ok: true; columns: string[]; rows: SqlValue[][]; truncated: boolean; sql: string; ms: number }
  | { ok: false; error: string; kind: "refused" | "error" | "timeout"; sql: string; ms: number };

const FORBIDDEN = /^\s*(?:--[^\n]*\n\s*|\/\*[\s\S]*?\*\/\s*)*(ATTACH|DETACH|VACUUM)\b/i;

function workerFile(): string {
  const root = process.env.METRON_ROOT ?? process.cwd();
  return path.join(/*turbopackIgnore: true*/ root, "lib", "eval", "sandbox-worker.mjs");
}

interface Task {
  id: number;
  path: string;
  sql: string;
  maxRows: number;
  resolve: (r: { columns: string[]; rows: SqlValue[][]; truncated: boolean } | { error: string; timeout?: boolean }) => void;
}

interface Slot {
  worker: Worker;
  task?: Task;
  timer?: NodeJS.Timeout;
}

export class SqlSandbox {
  private slots: Slot[] = [];
  private queue: Task[] = [];
  private nextId = 1;
  private compilers = new Map<string, Database.Database>();
  readonly limits;

  constructor(limits: Partial<ReturnType<typeof sandboxLimits>> = {}) {
    this.limits = { ...sandboxLimits(), ...limits };
  }

  /** Compiles on the main thread: refuses writes, returns the SQL to run (legacy double-quoted strings applied). */
  check(dbPath: string, sql: string): { ok: true; sql: string } | { ok: false; error: string; kind: "refused" | "error" } {
    const text = sql.trim().replace(/;\s*$/, "");
    if (FORBIDDEN.test(text)) return { ok: false, kind: "refused", error: `refused: ${FORBIDDEN.exec(text)![1].toUpperCase()} is not allowed` };
    let db = this.compilers.get(dbPath);
    if (!db) {
      db = new Database(dbPath, { readonly: true, fileMustExist: true });
      db.pragma("query_only = 1");
      this.compilers.set(dbPath, db);
    }
    try {
      const { statement, sql: rewritten } = prepareLegacy(db, text);
      if (!statement.readonly) return { ok: false, kind: "refused", error: "refused: only read-only statements run here" };
      return { ok: true, sql: rewritten };
    } catch (e) {
      return { ok: false, kind: "error", error: (e as Error).message };
    }
  }

  async run(dbPath: string, sql: string, maxRows = this.limits.maxRows): Promise<QueryResult> {
    const started = performance.now();
    const checked = this.check(dbPath, sql);
    if (!checked.ok) return { ...checked, sql, ms: performance.now() - started };
    const out = await new Promise<Parameters<Task["resolve"]>[0]>((resolve) => {
      this.queue.push({ id: this.nextId++, path: dbPath, sql: checked.sql, maxRows, resolve });
      this.pump();
    });
    const ms = performance.now() - started;
    if ("error" in out) return { ok: false, kind: out.timeout ? "timeout" : /^refused/.test(out.error) ? "refused" : "error", error: out.error, sql: checked.sql, ms };
    return { ok: true, ...out, sql: checked.sql, ms };
  }

  private spawn(): Slot {
    const slot: Slot = { worker: new Worker(workerFile()) };
    slot.worker.on("message", (msg: { id: number } & ({ columns: string[]; rows: SqlValue[][]; truncated: boolean } | { error: string })) => {
      const task = slot.task;
      if (!task || task.id !== msg.id) return;
      clearTimeout(slot.timer);
      slot.task = undefined;
      task.resolve(msg);
      this.pump();
    });
    slot.worker.on("error", (e) => this.fail(slot, e.message));
    slot.worker.unref();
    return slot;
  }

  private fail(slot: Slot, message: string, timeout = false) {
    clearTimeout(slot.timer);
    const task = slot.task;
    slot.task = undefined;
    void slot.worker.terminate();
    this.slots = this.slots.filter((s) => s !== slot);
    task?.resolve({ error: message, timeout });
    this.pump();
  }

  private pump() {
    while (this.queue.length) {
      let slot = this.slots.find((s) => !s.task);
      if (!slot && this.slots.length < this.limits.workers) {
        slot = this.spawn();
        this.slots.push(slot);
      }
      if (!slot) return;
      const task = this.queue.shift()!;
      slot.task = task;
      const s = slot;
      s.timer = setTimeout(() => this.fail(s, `stopped at the time limit of ${this.limits.timeoutMs} ms (METRON_SQL_TIMEOUT_MS)`, true), this.limits.timeoutMs);
      s.worker.postMessage({ id: task.id, path: task.path, sql: task.sql, maxRows: task.maxRows });
    }
  }

  async close(): Promise<void> {
    for (const s of this.slots) {
      clearTimeout(s.timer);
      s.task?.resolve({ error: "sandbox closed" });
    }
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots = [];
    for (const db of this.compilers.values()) db.close();
    this.compilers.clear();
  }
}

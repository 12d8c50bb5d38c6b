/**
 * The read-only SQL sandbox every query Metron runs goes through (evaluation, the environment's tools, result
 * diffs, the demo). Each statement is compiled and run in a worker *process* (sandbox-worker.mjs, rules in
 * sandbox-check.mjs): exactly one statement, read-only by SQLite's own account, on a read-only `query_only`
 * connection, with legacy double-quoted strings emulated. Limits, each named in the error when hit: time (the
 * process is killed with SIGKILL and replaced, so the query stops inside SQLite too and the CPU returns to idle),
 * rows, bytes per value and per result, the size of the SQL text, and the worker's address space (ulimit -v), so
 * that a query building huge values fails in the worker instead of growing the server.
 */
import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { positiveNumber } from "@/lib/config/env";
import { sandboxLimits } from "./limits";

export type SqlValue = string | number | bigint | null | Uint8Array;

export type QueryResult =
  | { ok: true; columns: string[]; rows: SqlValue[][]; truncated: boolean; sql: string; ms: number }
  | { ok: false; error: string; kind: "refused" | "error" | "timeout" | "limit"; sql: string; ms: number };

type Reply =
  | { ok: true; columns: string[]; rows: SqlValue[][]; truncated: boolean; sql: string }
  | { ok: false; error: string; kind: "refused" | "error" | "timeout" | "limit"; sql: string };

function workerFile(): string {
  const root = process.env.METRON_ROOT ?? process.cwd();
  return path.join(/*turbopackIgnore: true*/ root, "lib", "sandbox", "worker.mjs");
}

interface Task {
  id: number;
  message: {
    path: string;
    sql: string;
    maxRows: number;
    maxBytes: number;
    maxValueBytes: number;
    compileOnly: boolean;
  };
  resolve: (r: Reply) => void;
}

interface Slot {
  child: ChildProcess;
  task?: Task;
  timer?: NodeJS.Timeout;
  dead?: boolean;
}

export class SqlSandbox {
  private slots: Slot[] = [];
  private queue: Task[] = [];
  private nextId = 1;
  readonly limits;

  constructor(limits: Partial<ReturnType<typeof sandboxLimits>> = {}) {
    this.limits = { ...sandboxLimits(), ...limits };
  }

  /** Compiles without running: whether the statement may run here, and the SQL that would run. */
  async check(
    dbPath: string,
    sql: string,
  ): Promise<
    { ok: true; sql: string } | { ok: false; error: string; kind: "refused" | "error" | "timeout" | "limit" }
  > {
    const r = await this.submit(dbPath, sql, 0, true);
    return r.ok ? { ok: true, sql: r.sql } : { ok: false, error: r.error, kind: r.kind };
  }

  async run(dbPath: string, sql: string, maxRows = this.limits.maxRows): Promise<QueryResult> {
    const started = performance.now();
    const r = await this.submit(dbPath, sql, maxRows, false);
    return { ...r, ms: performance.now() - started };
  }

  private submit(dbPath: string, sql: string, maxRows: number, compileOnly: boolean): Promise<Reply> {
    if (Buffer.byteLength(sql) > this.limits.maxSqlBytes) {
      return Promise.resolve({
        ok: false,
        kind: "limit",
        sql: sql.slice(0, 200),
        error: `the SQL text is over the limit of ${this.limits.maxSqlBytes} bytes (METRON_SQL_MAX_SQL_BYTES)`,
      });
    }
    return new Promise((resolve) => {
      const { maxResultBytes: maxBytes, maxValueBytes } = this.limits;
      this.queue.push({
        id: this.nextId++,
        message: { path: dbPath, sql, maxRows, maxBytes, maxValueBytes, compileOnly },
        resolve,
      });
      this.pump();
    });
  }

  private spawn(): Slot {
    const memoryKb = this.limits.memoryMb * 1024;
    // `ulimit -v` bounds the worker's address space; `exec` keeps the IPC channel and makes the pid node's own.
    const child = spawn(
      "/bin/sh",
      ["-c", `ulimit -v ${memoryKb} 2>/dev/null; exec "$0" "$1"`, process.execPath, workerFile()],
      {
        stdio: ["ignore", "ignore", "pipe", "ipc"],
        serialization: "advanced",
        env: { ...process.env, METRON_SANDBOX_MEMORY_MB: String(this.limits.memoryMb) },
      },
    );
    const slot: Slot = { child };
    let stderr = "";
    child.stderr?.on("data", (d: Buffer) => {
      if (stderr.length < 4000) stderr += d.toString();
    });
    child.on("message", (msg: { id: number } & Reply) => {
      const task = slot.task;
      if (!task || task.id !== msg.id) return;
      clearTimeout(slot.timer);
      slot.task = undefined;
      task.resolve(msg);
      this.pump();
    });
    child.on("exit", (code, signal) => {
      if (slot.dead) return;
      // An abort while converting a huge value is the address-space limit at work: say which limit.
      if (signal === "SIGABRT" || /out of memory|allocation failed/i.test(stderr)) {
        this.fail(
          slot,
          `out of memory: the query needs more than the sandbox's ${this.limits.memoryMb} MB (METRON_SQL_MEMORY_MB); its worker was replaced`,
          "limit",
        );
      } else
        this.fail(
          slot,
          `the sandbox worker stopped (${signal ?? `exit ${code}`})${stderr ? `: ${stderr.trim().split("\n").pop()}` : ""}`,
          "error",
        );
    });
    child.on("error", (e) => this.fail(slot, e.message, "error"));
    child.unref();
    (child.channel as unknown as { unref?: () => void } | undefined)?.unref?.();
    return slot;
  }

  private fail(slot: Slot, message: string, kind: "timeout" | "error" | "limit") {
    clearTimeout(slot.timer);
    const task = slot.task;
    slot.task = undefined;
    slot.dead = true;
    slot.child.kill("SIGKILL");
    this.slots = this.slots.filter((s) => s !== slot);
    task?.resolve({ ok: false, kind, error: message, sql: task.message.sql });
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
      s.timer = setTimeout(
        () =>
          this.fail(s, `stopped at the time limit of ${this.limits.timeoutMs} ms (METRON_SQL_TIMEOUT_MS)`, "timeout"),
        this.limits.timeoutMs,
      );
      s.child.send({ id: task.id, ...task.message });
    }
  }

  /** The worker processes' ids (for diagnostics and tests). */
  pids(): number[] {
    return this.slots.map((s) => s.child.pid).filter((p): p is number => p !== undefined);
  }

  async close(): Promise<void> {
    for (const s of this.slots) {
      clearTimeout(s.timer);
      s.dead = true;
      s.task?.resolve({ ok: false, kind: "error", error: "sandbox closed", sql: s.task.message.sql });
      s.child.kill("SIGKILL");
    }
    this.slots = [];
    for (const t of this.queue.splice(0))
      t.resolve({ ok: false, kind: "error", error: "sandbox closed", sql: t.message.sql });
  }
}

const g = globalThis as unknown as { metronSandbox?: SqlSandbox; metronAgentSandbox?: SqlSandbox };

/** The process-wide sandbox of a long-running server: concurrent requests queue for its workers. */
export function sharedSandbox(): SqlSandbox {
  return (g.metronSandbox ??= new SqlSandbox());
}

/**
 * The process-wide sandbox of the agents' environments (reruns and sweep jobs): their queries share its workers,
 * `METRON_AGENT_SQL_WORKERS` of them (default 4), started when first needed and kept. Each job used to start a
 * sandbox of its own, so every job paid for starting worker processes (a third of a simulated job's time); a pool
 * apart from the pages' sandbox keeps an agent's slow query from holding up a page, and more workers than the
 * pages' two keep one agent's slow query from holding up the other jobs of a sweep.
 */
export function agentSandbox(): SqlSandbox {
  return (g.metronAgentSandbox ??= new SqlSandbox({
    maxRows: 1001,
    workers: positiveNumber("METRON_AGENT_SQL_WORKERS", 4),
  }));
}

/** Stops the process-wide sandboxes' workers (a CLI command that used them, before it exits). */
export async function closeSharedSandbox(): Promise<void> {
  const sandboxes = [g.metronSandbox, g.metronAgentSandbox];
  g.metronSandbox = undefined;
  g.metronAgentSandbox = undefined;
  for (const s of sandboxes) await s?.close();
}

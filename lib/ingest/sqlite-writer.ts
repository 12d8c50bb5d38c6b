/**
 * The SQLite store's upload writer: trace by trace, with prepared statements, on the connection of the caller's
 * transaction (BEGIN IMMEDIATE), synchronously. Each trace is written in a savepoint of its own, so the one trace
 * SQLite refuses fails alone with its line and the upload goes on.
 */
import type Database from "better-sqlite3";
import type { RoleMap } from "@/lib/sql/classify-step";
import { lostTransaction, storeFault } from "./store-fault";
import { lineFailure } from "./read-traces";
import { mergeRoles, storeLookups, ToolCounter, type StoreLookups } from "./measure";
import { STEP_COLUMNS, TRACE_COLUMNS, type PreparedTrace } from "./prepare";
import { insertText, qb } from "@/lib/db/typed";
import {
  addToolCounts,
  finishUpload,
  keepBlob,
  keepRun,
  keepTrace,
  runRef,
  RUN_COLUMNS,
  TOOL_COUNT_COLUMNS,
  UPLOAD_COLUMNS,
  UPLOAD_ERROR_COLUMNS,
  type PendingTrace,
  type RunRef,
  type UploadInfo,
  type UploadWriter,
  type WriteSink,
} from "./upload-writer";

/**
 * The tool → role mapping of each run, cached: the upload's own mapping, else the run's stored one, else the
 * default. Reads the runs table through `sqlite` (the writer's connection, or the ingest worker's reader).
 */
export function runRoles(sqlite: Database.Database, toolRoles?: Record<string, string>): (runId: string) => RoleMap {
  const roles = new Map<string, RoleMap>();
  const stored = sqlite.prepare(
    qb({ dialect: "sqlite" }).selectFrom("runs").select("tool_roles as roles").where("id", "=", "").compile().sql,
  );
  return (runId) => {
    let map = roles.get(runId);
    if (!map) {
      const json = (stored.get(runId) as { roles: string | null } | undefined)?.roles;
      map = mergeRoles(toolRoles ?? (json ? JSON.parse(json) : null));
      roles.set(runId, map);
    }
    return map;
  };
}

export class SqliteUploadWriter implements UploadWriter {
  private statements;
  private runs = new Map<string, RunRef>();
  /** Runs this upload changed (a trace inserted, or the tool roles it was given): their versions move. */
  private changed = new Set<string>();
  private tools = new ToolCounter();
  inserted = 0;
  duplicates = 0;
  readonly lookups: StoreLookups;
  readonly rolesFor: (runId: string) => RoleMap;
  readonly readerFile: string | null;

  constructor(
    private sqlite: Database.Database,
    private upload: UploadInfo,
    private sink: WriteSink,
    /** A tool → role mapping given at upload; saved on the runs it touches. */
    private toolRoles?: Record<string, string>,
  ) {
    const s = sqlite;
    this.lookups = storeLookups(sqlite);
    this.rolesFor = runRoles(sqlite, toolRoles);
    this.readerFile = sqlite.memory ? null : sqlite.name;
    const q = qb({ dialect: "sqlite" });
    this.statements = {
      run: s.prepare(insertText("sqlite", "runs", RUN_COLUMNS, 1, keepRun)),
      setRunRoles: s.prepare(
        q.updateTable("runs").set({ tool_roles: "" }).where("id", "=", "").compile().sql, // (roles, id)
      ),
      trace: s.prepare(insertText("sqlite", "traces", ["id", "run_id", "upload_id", ...TRACE_COLUMNS], 1, keepTrace)),
      step: s.prepare(insertText("sqlite", "steps", ["trace_id", ...STEP_COLUMNS])),
      blob: s.prepare(insertText("sqlite", "blobs", ["hash", "content"], 1, keepBlob)),
      error: s.prepare(insertText("sqlite", "upload_errors", UPLOAD_ERROR_COLUMNS)),
      // Prepared once: `exec` would parse the statement again for every trace (a tenth of the ingest's time).
      savepoint: s.prepare("SAVEPOINT trace"),
      release: s.prepare("RELEASE trace"),
    };
  }

  async begin(): Promise<void> {
    if (!this.sqlite.inTransaction) throw new Error("an upload is written inside the caller's transaction");
    this.sqlite
      .prepare(insertText("sqlite", "uploads", UPLOAD_COLUMNS))
      .run(this.upload.id, this.upload.source, this.upload.fileName ?? null);
  }

  add(item: PendingTrace): void {
    const prepared = item.prepared;
    const knownRun = this.runs.has(prepared.run.id);
    // Outside the upload's transaction a savepoint would open one of its own and commit this trace alone.
    if (!this.sqlite.inTransaction) throw lostTransaction();
    this.statements.savepoint.run();
    let inserted: boolean;
    try {
      inserted = this.write(prepared);
      this.statements.release.run();
    } catch (e) {
      // A fault of the store (a full disk) aborts the upload; SQLite may have rolled it all back already.
      const fault = storeFault(e) ?? (this.sqlite.inTransaction ? null : lostTransaction());
      if (fault) throw fault;
      this.sqlite.exec("ROLLBACK TO trace; RELEASE trace");
      if (!knownRun) this.runs.delete(prepared.run.id); // its row was rolled back with the trace
      return this.sink.failed(item, `this trace could not be stored: ${lineFailure(e)}`);
    }
    this.sink.stored(item, inserted);
  }

  private write(p: PreparedTrace): boolean {
    const runId = p.run.id;
    if (!this.runs.has(runId)) {
      this.statements.run.run(
        runId,
        p.run.name,
        p.run.system,
        p.run.model,
        p.run.benchmark,
        p.run.config,
        p.run.datasetId,
        this.toolRoles ? JSON.stringify(this.toolRoles) : null,
      );
      if (this.toolRoles) {
        this.statements.setRunRoles.run(JSON.stringify(this.toolRoles), runId);
        this.changed.add(runId);
      }
      this.runs.set(runId, runRef(p));
    }
    const info = this.statements.trace.run(p.id, runId, this.upload.id, ...p.values);
    if (info.changes === 0) {
      this.duplicates++;
      return false;
    }
    for (const [hash, content] of p.blobs) this.statements.blob.run(hash, content);
    for (const row of p.steps) this.statements.step.run(p.id, ...row);
    this.tools.add(runId, p.tools);
    this.changed.add(runId);
    this.inserted++;
    return true;
  }

  addError(line: number, message: string): void {
    this.statements.error.run(this.upload.id, line, message);
  }

  async finish(totals: { bytes: number; lines: number; errors: number }): Promise<RunRef[]> {
    const runs = [...this.runs.values()];
    const upsert = this.sqlite.prepare(insertText("sqlite", "run_tool_counts", TOOL_COUNT_COLUMNS, 1, addToolCounts));
    for (const row of this.tools.drain()) upsert.run(...row);
    const bump = this.sqlite.prepare(
      qb({ dialect: "sqlite" })
        .updateTable("runs")
        .set((eb) => ({ version: eb("version", "+", eb.lit(1)) }))
        .where("id", "=", "")
        .compile().sql,
    );
    // A run that only met duplicates is unchanged: its derived data (lib/db/queries/run-cache.ts) stays valid.
    for (const id of this.changed) bump.run(id);
    const finish = finishUpload("sqlite", this.upload, totals, this, runs);
    this.sqlite.prepare(finish.sql).run(...finish.parameters);
    if (!this.sqlite.inTransaction) throw lostTransaction();
    return runs;
  }
}

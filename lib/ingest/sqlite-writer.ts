/**
 * The SQLite store's upload writer: trace by trace, with prepared statements, on the connection of the caller's
 * transaction (BEGIN IMMEDIATE), synchronously. Traces are written in batches of SAVEPOINT_BATCH, each batch in a
 * savepoint; a batch in which SQLite refuses a trace is rolled back and written again trace by trace, each in a
 * savepoint of its own, so the one trace SQLite refuses fails alone with its line and the upload goes on. (A savepoint
 * per trace cost 40 % of the writing thread's time: SQLite copies every page a savepoint first changes into its
 * sub-journal, so each trace copied the pages of the traces' indexes and the steps' last page again.)
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
  BATCH_TEXT_CHARS,
  finishUpload,
  keepBlob,
  keepRun,
  keepTrace,
  preparedChars,
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

/**
 * Traces written in one savepoint (docs/benchmarks.md: 1 cost 40 % of the writes; 128 is within noise of none), or
 * fewer when their text passes BATCH_TEXT_CHARS.
 */
export const SAVEPOINT_BATCH = 128;

/** How many blob hashes an upload's writer remembers having written (about 100 bytes each). */
const BLOB_MEMORY = 100_000;

export class SqliteUploadWriter implements UploadWriter {
  private statements;
  /** The traces written in the open batch savepoint, with whether each was new: the sink hears them when it ends. */
  private batch: { item: PendingTrace; inserted: boolean }[] = [];
  private batchChars = 0;
  /** What the open batch changed, to undo when it is rolled back. */
  private batchUndo: { runs: string[]; changed: Set<string>; inserted: number; duplicates: number } | null = null;
  private runs = new Map<string, RunRef>();
  /**
   * Blobs this upload wrote, in a savepoint released or still open: a repeat is not written again (a schema tool's
   * result recurs in every trace that describes that table; the 66,633 repeated INSERT … DO NOTHING of a batch of the
   * bench's traces replayed 21 times took 162 ms, 9 ms when skipped). A cache only: past BLOB_MEMORY hashes it starts
   * over, and a blob it forgot is written again as before, to no effect.
   */
  private blobsWritten = new Set<string>();
  /** The hashes added to `blobsWritten` since the open batch (or lone trace) began: forgotten if it is rolled back. */
  private blobsPending: string[] = [];
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
      batchSavepoint: s.prepare("SAVEPOINT batch"),
      batchRelease: s.prepare("RELEASE batch"),
    };
  }

  async begin(): Promise<void> {
    if (!this.sqlite.inTransaction) throw new Error("an upload is written inside the caller's transaction");
    this.sqlite
      .prepare(insertText("sqlite", "uploads", UPLOAD_COLUMNS))
      .run(this.upload.id, this.upload.source, this.upload.fileName ?? null);
  }

  deferCheckpoint(): () => void {
    // The number of WAL pages past which a commit on this connection checkpoints (SQLite's default is 1,000).
    const before = this.sqlite.pragma("wal_autocheckpoint", { simple: true }) as number;
    this.sqlite.pragma("wal_autocheckpoint = 0");
    return () => {
      if (this.sqlite.open) this.sqlite.pragma(`wal_autocheckpoint = ${before}`);
    };
  }

  add(item: PendingTrace): void {
    // Outside the upload's transaction a savepoint would open one of its own and commit these traces alone.
    if (!this.sqlite.inTransaction) throw lostTransaction();
    if (!this.batchUndo) {
      this.statements.batchSavepoint.run();
      this.batchUndo = {
        runs: [],
        changed: new Set(this.changed),
        inserted: this.inserted,
        duplicates: this.duplicates,
      };
    }
    const runId = item.prepared.run.id;
    const knownRun = this.runs.has(runId);
    let inserted: boolean;
    try {
      inserted = this.write(item.prepared);
    } catch (e) {
      // A fault of the store (a full disk) aborts the upload; SQLite may have rolled it all back already.
      const fault = storeFault(e) ?? (this.sqlite.inTransaction ? null : lostTransaction());
      if (fault) throw fault;
      if (!knownRun) this.batchUndo.runs.push(runId);
      return this.retryBatch(item);
    }
    if (!knownRun) this.batchUndo.runs.push(runId);
    this.batch.push({ item, inserted });
    this.batchChars += preparedChars(item.prepared);
    if (this.batch.length >= SAVEPOINT_BATCH || this.batchChars >= BATCH_TEXT_CHARS) this.endBatch();
  }

  /** Ends the open batch: its traces are kept, and the sink hears them in order. */
  private endBatch(): void {
    if (!this.batchUndo) return;
    this.statements.batchRelease.run();
    this.batchUndo = null;
    this.blobsPending = [];
    const done = this.batch;
    this.batch = [];
    this.batchChars = 0;
    for (const { item, inserted } of done) this.stored(item, inserted);
  }

  /** A trace of the open batch was refused: the batch is rolled back and its traces written again one by one. */
  private retryBatch(failed: PendingTrace): void {
    const undo = this.batchUndo!;
    this.sqlite.exec("ROLLBACK TO batch; RELEASE batch");
    for (const id of undo.runs) this.runs.delete(id); // their rows were rolled back with the batch
    this.forgetPendingBlobs();
    this.changed = undo.changed;
    this.inserted = undo.inserted;
    this.duplicates = undo.duplicates;
    const again = [...this.batch.map((b) => b.item), failed];
    this.batch = [];
    this.batchChars = 0;
    this.batchUndo = null;
    for (const item of again) this.addAlone(item);
  }

  /** Writes one trace in a savepoint of its own: refused, it fails alone with its line. */
  private addAlone(item: PendingTrace): void {
    const prepared = item.prepared;
    const knownRun = this.runs.has(prepared.run.id);
    if (!this.sqlite.inTransaction) throw lostTransaction();
    this.statements.savepoint.run();
    let inserted: boolean;
    try {
      inserted = this.write(prepared);
      this.statements.release.run();
      this.blobsPending = [];
    } catch (e) {
      const fault = storeFault(e) ?? (this.sqlite.inTransaction ? null : lostTransaction());
      if (fault) throw fault;
      this.sqlite.exec("ROLLBACK TO trace; RELEASE trace");
      this.forgetPendingBlobs();
      if (!knownRun) this.runs.delete(prepared.run.id); // its row was rolled back with the trace
      return this.sink.failed(item, `this trace could not be stored: ${lineFailure(e)}`);
    }
    this.stored(item, inserted);
  }

  /** A trace's write is kept: its tool calls count, and the sink hears it. */
  private stored(item: PendingTrace, inserted: boolean): void {
    if (inserted) this.tools.add(item.prepared.run.id, item.prepared.tools);
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
    for (const [hash, content] of p.blobs) {
      if (this.blobsWritten.has(hash)) continue;
      this.statements.blob.run(hash, content);
      if (this.blobsWritten.size >= BLOB_MEMORY) this.blobsWritten.clear();
      this.blobsWritten.add(hash);
      this.blobsPending.push(hash);
    }
    for (const row of p.steps) this.statements.step.run(p.id, ...row);
    this.changed.add(runId);
    this.inserted++;
    return true;
  }

  /** The open savepoint was rolled back: the blobs it wrote are gone, so a later trace writes them again. */
  private forgetPendingBlobs(): void {
    for (const hash of this.blobsPending) this.blobsWritten.delete(hash);
    this.blobsPending = [];
  }

  addError(line: number, message: string): void {
    // Written outside any batch: a batch rolled back later would take the line's error with it.
    this.endBatch();
    this.statements.error.run(this.upload.id, line, message);
  }

  async finish(totals: { bytes: number; lines: number; errors: number }): Promise<RunRef[]> {
    this.endBatch();
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

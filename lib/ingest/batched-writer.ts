/**
 * The general upload writer: through `Sql` (the PostgreSQL store), inside the caller's one transaction. Traces are written in
 * batches of multi-row INSERTs: `ON CONFLICT (id) DO NOTHING RETURNING id` decides which are new, by content hash and
 * under concurrent uploads of the same file (the primary key, not a read-then-write), and only their steps and blobs
 * follow. A batch that fails is written again trace by trace, each in a savepoint, so that the one trace the store
 * refuses (a NUL character in a text, an integer column given a fraction) fails alone with its line number.
 */
import { storeFault } from "./store-fault";
import type { Param, Sql } from "@/lib/db/sql";
import { insertArrays, many, qb, write } from "@/lib/db/typed";
import type { RoleMap } from "@/lib/sql/classify-step";
import { mergeRoles, PreloadedLookups, ToolCounter } from "./measure";
import { STEP_COLUMNS, TRACE_COLUMNS, type PreparedTrace } from "./prepare";
import {
  addToolCounts,
  BATCH_TEXT_CHARS,
  finishUpload,
  keepBlob,
  keepRun,
  keepTraceReturningNew,
  preparedChars,
  runRef,
  RUN_COLUMNS,
  TOOL_COUNT_COLUMNS,
  UPLOAD_ERROR_COLUMNS,
  type PendingTrace,
  type RunRef,
  type UploadInfo,
  type UploadWriter,
  type WriteSink,
} from "./upload-writer";

/** Traces per batch, or fewer when their text passes BATCH_TEXT_CHARS. */
export const SQL_BATCH_TRACES = 100;

export class BatchedUploadWriter implements UploadWriter {
  inserted = 0;
  /** Runs this upload changed (a trace inserted, or the tool roles it was given): their versions move. */
  private changed = new Set<string>();
  duplicates = 0;
  readonly readerFile = null;
  private runs = new Map<string, RunRef>();
  private written = new Set<string>();
  private pending: PendingTrace[] = [];
  private pendingChars = 0;
  private errors: [number, string][] = [];
  private roleMaps = new Map<string, RoleMap>();
  /** The batch being written: reading and measuring the next one goes on meanwhile (one batch in flight). */
  private inflight: Promise<void> = Promise.resolve();
  private tools = new ToolCounter();

  private constructor(
    private tx: Sql,
    private upload: UploadInfo,
    private sink: WriteSink,
    readonly lookups: PreloadedLookups,
    /** The runs' stored tool → role mappings. */
    private storedRoles: Map<string, Record<string, string>>,
    private toolRoles?: Record<string, string>,
  ) {}

  /** A writer on `tx`, with every dataset's name and the runs' stored role mappings read once. */
  static async open(
    tx: Sql,
    upload: UploadInfo,
    sink: WriteSink,
    toolRoles?: Record<string, string>,
  ): Promise<BatchedUploadWriter> {
    const lookups = await PreloadedLookups.load(tx);
    const rows = await many(
      tx,
      qb(tx).selectFrom("runs").select(["id", "tool_roles as roles"]).where("tool_roles", "is not", null),
    );
    const stored = new Map(rows.map((r) => [r.id, JSON.parse(r.roles ?? "{}") as Record<string, string>]));
    return new BatchedUploadWriter(tx, upload, sink, lookups, stored, toolRoles);
  }

  readonly rolesFor = (runId: string): RoleMap => {
    let map = this.roleMaps.get(runId);
    if (!map) this.roleMaps.set(runId, (map = mergeRoles(this.toolRoles ?? this.storedRoles.get(runId) ?? null)));
    return map;
  };

  async begin(): Promise<void> {
    await write(
      this.tx,
      qb(this.tx)
        .insertInto("uploads")
        .values({ id: this.upload.id, source: this.upload.source, file_name: this.upload.fileName ?? null }),
    );
  }

  /** Queues a prepared trace; a full batch starts writing while the caller reads on. */
  async add(item: PendingTrace): Promise<void> {
    this.pending.push(item);
    this.pendingChars += preparedChars(item.prepared);
    if (this.pending.length < SQL_BATCH_TRACES && this.pendingChars < BATCH_TEXT_CHARS) return;
    const items = this.pending;
    this.pending = [];
    this.pendingChars = 0;
    await this.inflight; // its failure fails the upload here
    const writing = this.writeBatch(items);
    writing.catch(() => undefined); // awaited by the next batch or by flush()
    this.inflight = writing;
  }

  /** Writes everything queued, and waits for it. */
  private async flush(): Promise<void> {
    await this.inflight;
    const items = this.pending;
    this.pending = [];
    this.pendingChars = 0;
    if (items.length) await this.writeBatch(items);
  }

  private async writeBatch(items: PendingTrace[]): Promise<void> {
    await this.tx.exec("SAVEPOINT batch");
    try {
      const effects = await this.write(items);
      await this.tx.exec("RELEASE SAVEPOINT batch");
      this.apply(items, effects);
    } catch (e) {
      // A fault of the store (a full disk, a lost connection) aborts the upload instead of failing each trace.
      const fault = storeFault(e);
      if (fault) throw fault;
      await this.tx.exec("ROLLBACK TO SAVEPOINT batch; RELEASE SAVEPOINT batch");
      for (const item of items) {
        await this.tx.exec("SAVEPOINT one");
        try {
          const effects = await this.write([item]);
          await this.tx.exec("RELEASE SAVEPOINT one");
          this.apply([item], effects);
        } catch (e) {
          const fault = storeFault(e);
          if (fault) throw fault;
          await this.tx.exec("ROLLBACK TO SAVEPOINT one; RELEASE SAVEPOINT one");
          this.sink.failed(item, `this trace could not be stored: ${(e as Error).message}`);
        }
      }
    }
  }

  /** Writes a batch; changes nothing in memory (a failed batch is written again). */
  private async write(items: PendingTrace[]): Promise<{ inserted: Set<string>; runs: RunRef[] }> {
    const newRuns = new Map<string, PreparedTrace["run"]>();
    for (const { prepared: p } of items) if (!this.runs.has(p.run.id)) newRuns.set(p.run.id, p.run);
    const roles = this.toolRoles ? JSON.stringify(this.toolRoles) : null;
    await insertArrays(
      this.tx,
      "runs",
      RUN_COLUMNS,
      [...newRuns.values()].map((r) => [r.id, r.name, r.system, r.model, r.benchmark, r.config, r.datasetId, roles]),
      keepRun,
    );
    if (roles && newRuns.size)
      await write(
        this.tx,
        qb(this.tx)
          .updateTable("runs")
          .set({ tool_roles: roles })
          .where("id", "in", [...newRuns.keys()]),
      );
    // The same trace twice in one batch, or again after an earlier batch: a duplicate, written once.
    const fresh = new Map<string, PreparedTrace>();
    for (const { prepared: p } of items) if (!this.written.has(p.id) && !fresh.has(p.id)) fresh.set(p.id, p);
    const inserted = new Set(
      (
        await insertArrays(
          this.tx,
          "traces",
          ["id", "run_id", "upload_id", ...TRACE_COLUMNS],
          [...fresh.values()].map((p) => [p.id, p.run.id, this.upload.id, ...p.values]),
          keepTraceReturningNew,
        )
      ).map((r) => r.id as string),
    );
    const blobs = new Map<string, string>();
    const steps: unknown[][] = [];
    for (const p of fresh.values()) {
      if (!inserted.has(p.id)) continue;
      for (const [hash, content] of p.blobs) blobs.set(hash, content);
      for (const row of p.steps) steps.push([p.id, ...row]);
    }
    await insertArrays(this.tx, "blobs", ["hash", "content"], [...blobs.entries()], keepBlob);
    await insertArrays(this.tx, "steps", ["trace_id", ...STEP_COLUMNS], steps);
    return {
      inserted,
      runs: [...newRuns.keys()].map((id) => runRef(items.find((i) => i.prepared.run.id === id)!.prepared)),
    };
  }

  private apply(items: PendingTrace[], effects: { inserted: Set<string>; runs: RunRef[] }): void {
    for (const r of effects.runs) {
      this.runs.set(r.id, r);
      if (this.toolRoles) this.changed.add(r.id); // its tool roles were set
    }
    for (const item of items) {
      const p = item.prepared;
      const isNew = effects.inserted.has(p.id) && !this.written.has(p.id);
      if (isNew) {
        this.written.add(p.id);
        this.tools.add(p.run.id, p.tools);
        this.changed.add(p.run.id);
        this.inserted++;
      } else this.duplicates++;
      this.sink.stored(item, isNew);
    }
  }

  /** Kept until the end: written in the middle, a row could be rolled back with a failed batch's savepoint. */
  addError(line: number, message: string): void {
    this.errors.push([line, message]);
  }

  /** Writes what is queued, the tool counts, the runs' new versions and the upload's totals. */
  async finish(totals: { bytes: number; lines: number; errors: number }): Promise<RunRef[]> {
    await this.flush(); // a failing trace of the last batch is recorded before the totals are written
    await insertArrays(
      this.tx,
      "upload_errors",
      UPLOAD_ERROR_COLUMNS,
      this.errors.map(([line, message]) => [this.upload.id, line, message]),
    );
    this.errors = [];
    const runs = [...this.runs.values()];
    const counts: unknown[][] = this.tools.drain();
    await insertArrays(this.tx, "run_tool_counts", TOOL_COUNT_COLUMNS, counts, addToolCounts);
    // A run that only met duplicates is unchanged: its derived data (lib/db/queries/run-cache.ts) stays valid.
    if (this.changed.size)
      await write(
        this.tx,
        qb(this.tx)
          .updateTable("runs")
          .set((eb) => ({ version: eb("version", "+", 1) }))
          .where("id", "in", [...this.changed]),
      );
    const finish = finishUpload(this.tx.dialect, this.upload, totals, this, runs);
    await this.tx.compiled.run(finish.sql, finish.parameters as Param[]);
    return runs;
  }
}

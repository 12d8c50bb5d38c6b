/**
 * The ingest pipeline: byte stream → lines → `parseLine` → assemble (read-traces.ts; in a worker thread for large
 * uploads into a SQLite file, in-worker.ts) → measure → the store's `UploadWriter` (upload-writer.ts, one
 * transaction per upload) → `IngestReport`. A bad line is reported with its number and never stops the others; a
 * duplicate (same content hash) is counted, not stored twice.
 */
import { randomUUID } from "node:crypto";
import { refreshRunTotals } from "@/lib/db/run-totals";
import type { Sql } from "@/lib/db/sql";
import type { RunDefaults } from "@/lib/trace/types";
import { StoreFaultError, storeFault } from "./store-fault";
import type { SplitProgress } from "./split-lines";
import { TraceAssembler } from "@/lib/trace/assemble";
import {
  checkpointAfter,
  ingestWorkers,
  readInPool,
  readInWorker,
  workerForUpload,
  type ReadWorker,
} from "./in-worker";
import { finalSqlCaveat, lineFailure, readTraces } from "./read-traces";
import { ingestLimits } from "./limits";
import { runIdentityNotices } from "./run-record";
import { TraceMeasurer } from "./measure";
import { loadPrices } from "./prices-file";
import { prepareTrace } from "./prepare";
import { SqliteUploadWriter } from "./sqlite-writer";
import { BatchedUploadWriter } from "./batched-writer";
import type { PendingTrace, RunRef, UploadInfo, UploadWriter, WriteSink } from "./upload-writer";
import type { WorkerItem } from "./worker-protocol";

export type { RunRef, UploadInfo } from "./upload-writer";

export interface IngestError {
  line: number;
  message: string;
}

export interface IngestReport {
  upload_id: string;
  runs: RunRef[];
  inserted: number;
  duplicates: number;
  /** The first errors (up to `METRON_MAX_REPORTED_ERRORS`); all are stored with the upload. */
  errors: IngestError[];
  error_count: number;
  /** Traces stored with a caveat (a final SQL extracted from a Markdown fence or after a label). */
  warnings: IngestError[];
  lines: number;
  bytes: number;
  /** Whether the lines were read in the ingest worker thread (large uploads) or on the writing thread. */
  read_in_worker: boolean;
  /** How many worker threads read them (0: the writing thread did; `METRON_INGEST_WORKERS`). */
  worker_threads: number;
}

export interface IngestProgress extends SplitProgress {
  traces: number;
  errors: number;
}

export interface IngestOptions {
  defaults?: RunDefaults;
  source?: UploadInfo["source"];
  fileName?: string;
  maxLineBytes?: number;
  /** Called every `progressEvery` lines and at the end. A throw aborts and rolls back the upload. */
  onProgress?: (p: IngestProgress) => void;
  progressEvery?: number;
  /** Link the traces to this dataset (by id or name) instead of the runs' `benchmark` field. */
  dataset?: string;
  /** A tool → role mapping for this upload's runs, over the default one. */
  toolRoles?: Record<string, string>;
  /** The upload's size when known (a file): large ones are read in a worker thread (in-worker.ts). */
  expectedBytes?: number;
}

/** The input had no line at all: nothing is stored, not even an upload record. */
export class EmptyInputError extends Error {
  constructor() {
    super("the file is empty: no lines to ingest");
  }
}

export class UnknownDatasetError extends Error {
  constructor(name: string) {
    super(`no dataset named "${name}": import it first (metron dataset import)`);
  }
}

let lock: Promise<unknown> = Promise.resolve();

/**
 * Uploads into SQLite take turns in this process: the store has one writer, and each upload holds the write
 * transaction. PostgreSQL uploads run side by side (each in a transaction of its own; the primary keys settle races).
 */
function withIngestLock<T>(sql: Sql, fn: () => Promise<T>): Promise<T> {
  if (sql.dialect !== "sqlite") return fn();
  const next = lock.then(fn, fn);
  lock = next.catch(() => undefined);
  return next;
}

/** The store's upload writer, chosen once by engine. */
export async function openUploadWriter(
  tx: Sql,
  upload: UploadInfo,
  sink: WriteSink,
  toolRoles?: Record<string, string>,
): Promise<UploadWriter> {
  return tx.connection
    ? new SqliteUploadWriter(tx.connection, upload, sink, toolRoles)
    : BatchedUploadWriter.open(tx, upload, sink, toolRoles);
}

function reportOf(
  upload: UploadInfo,
  runs: RunRef[],
  counts: { inserted: number; duplicates: number },
  progress: IngestProgress,
  errors: IngestError[],
  warnings: IngestError[],
  workerThreads: number,
): IngestReport {
  return {
    upload_id: upload.id,
    runs,
    inserted: counts.inserted,
    duplicates: counts.duplicates,
    errors,
    error_count: progress.errors,
    warnings: warnings.sort((a, b) => a.line - b.line),
    lines: progress.lines,
    bytes: progress.bytes,
    read_in_worker: workerThreads > 0,
    worker_threads: workerThreads,
  };
}

/** Ingests into the store, after the uploads this process is already writing into the same SQLite store. */
export function ingestStream(
  sql: Sql,
  chunks: AsyncIterable<Uint8Array>,
  options: IngestOptions = {},
): Promise<IngestReport> {
  return withIngestLock(sql, () => runIngest(sql, chunks, options));
}

/** What an upload starts with, on either engine: its limits, its record and the run name a file without one gets. */
function uploadOf(options: IngestOptions) {
  const limits = ingestLimits();
  return {
    limits,
    maxLineBytes: options.maxLineBytes ?? limits.maxLineBytes,
    upload: { id: randomUUID(), source: options.source ?? "cli", fileName: options.fileName } as UploadInfo,
    fallbackName: options.fileName ? options.fileName.replace(/\.(jsonl|json|ndjson)$/i, "") : "unnamed run",
  };
}

/** The ingest itself, outside this process's upload queue (other processes do not share that queue either). */
export async function runIngest(
  sql: Sql,
  chunks: AsyncIterable<Uint8Array>,
  options: IngestOptions,
): Promise<IngestReport> {
  const { limits, maxLineBytes, upload, fallbackName } = uploadOf(options);
  const progress: IngestProgress = { bytes: 0, lines: 0, traces: 0, errors: 0 };
  const errors: IngestError[] = [];
  const warnings: IngestError[] = [];
  const warn = (line: number, message: string) => {
    if (warnings.length < limits.maxReportedErrors) warnings.push({ line, message });
  };
  let writer: UploadWriter | undefined;
  /** The one worker that read the upload, kept for the checkpoint after the commit (`checkpointAfter`). */
  let reader: ReadWorker | undefined;
  /** Undoes `deferCheckpoint` on the writer's connection once the transaction has ended. */
  let undefer: (() => void) | undefined;
  const fail = (line: number, message: string) => {
    progress.errors++;
    if (errors.length < limits.maxReportedErrors) errors.push({ line, message });
    writer!.addError(line, message);
  };
  const sink: WriteSink = {
    stored: (item) => {
      progress.traces++;
      if (item.caveat) warn(item.line, `${item.caveat}; the raw text is kept in the trace`);
    },
    failed: (item, message) => fail(item.line, message),
  };
  return sql
    .transaction(async (tx) => {
      const w = (writer = await openUploadWriter(tx, upload, sink, options.toolRoles));
      const { lookups } = w;
      let datasetId: string | undefined;
      if (options.dataset) {
        datasetId = lookups.datasetId(options.dataset) ?? undefined;
        if (!datasetId) throw new UnknownDatasetError(options.dataset);
        await lookups.prime(datasetId);
      }
      const measurer = new TraceMeasurer(lookups, loadPrices(), datasetId);
      const every = options.progressEvery ?? 200;
      const readOptions = { defaults: options.defaults, fallbackName, maxLineBytes };
      const workerFile = w.readerFile ? workerForUpload(options.expectedBytes) : null;
      try {
        await w.begin();
        const add = (item: PendingTrace) => w.add(item);
        const store = (trace: Parameters<typeof finalSqlCaveat>[0], line: number) => {
          let prepared;
          try {
            prepared = prepareTrace(trace, measurer, w.rolesFor);
          } catch (e) {
            // One trace that cannot be measured (nesting past the stack) fails alone.
            return fail(line, `this trace could not be stored: ${lineFailure(e)}`);
          }
          return add({ prepared, line, caveat: finalSqlCaveat(trace) });
        };
        const measureAndStore = (trace: Parameters<typeof finalSqlCaveat>[0], line: number) => {
          const primed = lookups.prime(datasetId ?? trace.run.benchmark);
          return primed ? primed.then(() => store(trace, line)) : store(trace, line);
        };
        const workers = workerFile ? ingestWorkers() : 0;
        // What the worker (or the pool) hands back, written in the file's order. Event lines come back from a pool
        // as they are and are assembled here, in order, as one reader would (a trace's events may lie in several
        // workers' blocks); one worker assembles them itself.
        const assembler = new TraceAssembler(options.defaults, fallbackName);
        const fromWorker = (item: WorkerItem) => {
          if (item.kind === "fail") return fail(item.line, item.message);
          if (item.kind === "warn") return warn(item.line, item.message);
          if (item.kind === "event") {
            const err = assembler.event(item.event, item.line);
            return err ? fail(err.line, err.message) : undefined;
          }
          return add(item);
        };
        const afterBatch = () => options.onProgress?.(progress);
        if (workerFile && w.readerFile) {
          // Large uploads: worker threads read and measure while this thread writes (in-worker.ts): one worker
          // streaming the chunks, or a pool reading blocks of lines (METRON_INGEST_WORKERS).
          const init = { dbPath: w.readerFile, datasetId, toolRoles: options.toolRoles, ...readOptions };
          if (workers > 1) await readInPool(workerFile, init, workers, chunks, progress, fromWorker, afterBatch);
          else {
            // The commit leaves the log's checkpoint to the worker, off this thread (a server answers meanwhile).
            undefer = w.deferCheckpoint?.();
            reader = await readInWorker(workerFile, init, chunks, progress, fromWorker, afterBatch);
          }
          if (progress.lines > 0) {
            const assembled = assembler.finish();
            for (const err of assembled.errors) fail(err.line, err.message);
            for (const { trace, lineNo } of assembled.traces) {
              const pending = measureAndStore(trace, lineNo);
              if (pending) await pending;
            }
          }
        } else {
          await readTraces(chunks, readOptions, progress, {
            trace: measureAndStore,
            fail,
            warn,
            line: () => {
              if (options.onProgress && progress.lines % every === 0) options.onProgress(progress);
            },
          });
        }
        if (progress.lines === 0) throw new EmptyInputError();
        const runs = await runIdentityNotices(
          tx,
          await w.finish({ bytes: progress.bytes, lines: progress.lines, errors: progress.errors }),
        );
        // The runs' totals as of their new versions, committed with the upload: the home page reads them.
        await refreshRunTotals(
          tx,
          runs.map((r) => r.id),
        );
        options.onProgress?.(progress);
        errors.sort((a, b) => a.line - b.line);
        return reportOf(upload, runs, w, progress, errors, warnings, workerFile && w.readerFile ? workers : 0);
      } finally {
        measurer.close();
      }
    })
    .then(
      (report) => {
        undefer?.();
        if (reader) checkpointAfter(reader);
        return report;
      },
      (e: unknown) => {
        undefer?.();
        reader?.release();
        throw e instanceof StoreFaultError ? e : (storeFault(e) ?? e);
      },
    );
}

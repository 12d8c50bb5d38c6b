/**
 * The ingest pipeline: byte stream → lines → `parseLine` → assemble (read-traces.ts; in a worker thread for large
 * uploads, in-worker.ts) → `Persister` (one transaction per upload) → `IngestReport`. A bad line is reported with
 * its number and never stops the others; a duplicate (same content hash) is counted, not stored twice.
 */
import type Database from "better-sqlite3";
import { StoreFaultError, storeFault } from "./store-fault";
import { randomUUID } from "node:crypto";
import type { RunDefaults, Trace } from "@/lib/trace/types";
import { Persister, type RunRef, type UploadInfo } from "./persist";
import type { SplitProgress } from "./split-lines";
import { readInWorker, workerForUpload } from "./in-worker";
import { finalSqlCaveat, lineFailure, readTraces } from "./read-traces";
import { mergeRoles } from "./measure";
import type { RoleMap } from "@/lib/sql/classify-step";
import { ingestLimits } from "./limits";
import { PreloadedLookups, TraceMeasurer } from "./measure";
import { loadPrices } from "./prices-file";
import { isSql, type Sql } from "@/lib/db/sql";
import { SqlPersister } from "./persist-sql";
import { prepareTrace } from "./prepare";

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

/** Uploads are serialised: SQLite has one writer, and each upload holds a write transaction. */
function withIngestLock<T>(fn: () => Promise<T>): Promise<T> {
  const next = lock.then(fn, fn);
  lock = next.catch(() => undefined);
  return next;
}

function reportOf(
  upload: UploadInfo,
  runs: RunRef[],
  counts: { inserted: number; duplicates: number },
  progress: IngestProgress,
  errors: IngestError[],
  warnings: IngestError[],
  readInWorker: boolean,
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
    read_in_worker: readInWorker,
  };
}

/** Ingests into a SQLite connection (its synchronous fast path) or any `Sql` store (PostgreSQL: batched writes). */
export function ingestStream(
  store: Database.Database | Sql,
  chunks: AsyncIterable<Uint8Array>,
  options: IngestOptions = {},
): Promise<IngestReport> {
  if (isSql(store)) {
    const { connection } = store;
    return withIngestLock(() =>
      connection ? runIngest(connection, chunks, options) : runIngestSql(store, chunks, options),
    );
  }
  return withIngestLock(() => runIngest(store, chunks, options));
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
  sqlite: Database.Database,
  chunks: AsyncIterable<Uint8Array>,
  options: IngestOptions,
): Promise<IngestReport> {
  const { limits, maxLineBytes, upload, fallbackName } = uploadOf(options);
  let datasetId: string | undefined;
  if (options.dataset) {
    const row = sqlite
      .prepare("SELECT id FROM datasets WHERE id = ? OR name = ?")
      .get(options.dataset, options.dataset) as { id: string } | undefined;
    if (!row) throw new UnknownDatasetError(options.dataset);
    datasetId = row.id;
  }
  const measurer = new TraceMeasurer(sqlite, loadPrices(), datasetId);
  const persister = new Persister(sqlite, upload, measurer, options.toolRoles);
  const progress: IngestProgress = { bytes: 0, lines: 0, traces: 0, errors: 0 };
  const errors: IngestError[] = [];
  const warnings: IngestError[] = [];
  const written = (line: number, caveat: string | null) => {
    progress.traces++;
    if (caveat && warnings.length < limits.maxReportedErrors)
      warnings.push({ line, message: `${caveat}; the raw text is kept in the trace` });
  };
  const warn = (line: number, message: string) => {
    if (warnings.length < limits.maxReportedErrors) warnings.push({ line, message });
  };
  const store = (trace: Trace, line: number) => {
    try {
      persister.add(trace);
    } catch (e) {
      if (e instanceof StoreFaultError) throw e; // the store itself failed: the upload aborts
      // One trace that cannot be measured or written (nesting past the stack, a number SQLite refuses) fails alone.
      fail(line, `this trace could not be stored: ${lineFailure(e)}`);
      return;
    }
    written(line, finalSqlCaveat(trace));
  };
  const every = options.progressEvery ?? 200;

  const fail = (line: number, message: string) => {
    progress.errors++;
    if (errors.length < limits.maxReportedErrors) errors.push({ line, message });
    persister.addError(line, message);
  };

  const readOptions = { defaults: options.defaults, fallbackName, maxLineBytes };
  const workerFile = workerForUpload(sqlite, options.expectedBytes);
  await persister.begin();
  try {
    if (workerFile) {
      // Large uploads: a worker thread reads and measures while this thread writes (in-worker.ts).
      const init = { dbPath: sqlite.name, datasetId, toolRoles: options.toolRoles, ...readOptions };
      await readInWorker(
        workerFile,
        init,
        chunks,
        progress,
        (item) => {
          if (item.kind === "fail") return fail(item.line, item.message);
          if (item.kind === "warn") return warn(item.line, item.message);
          try {
            persister.addPrepared(item.prepared);
          } catch (e) {
            if (e instanceof StoreFaultError) throw e;
            return fail(item.line, `this trace could not be stored: ${lineFailure(e)}`);
          }
          written(item.line, item.caveat);
        },
        () => options.onProgress?.(progress),
      );
    } else {
      await readTraces(chunks, readOptions, progress, {
        trace: store,
        fail,
        warn,
        line: () => {
          if (options.onProgress && progress.lines % every === 0) options.onProgress(progress);
        },
      });
    }
    if (progress.lines === 0) throw new EmptyInputError();
    options.onProgress?.(progress);
    errors.sort((a, b) => a.line - b.line);
    const runs = persister.commit({ bytes: progress.bytes, lines: progress.lines, errors: progress.errors });
    return reportOf(upload, runs, persister, progress, errors, warnings, workerFile !== null);
  } catch (e) {
    persister.rollback();
    throw storeFault(e) ?? e;
  } finally {
    measurer.close();
  }
}

/**
 * The ingest through `Sql` (the PostgreSQL store): the same reading, validation, measuring and report, in one
 * transaction; traces are written in batches (persist-sql.ts). The lines are read on this thread: the ingest worker
 * thread reads a SQLite store's file, which a PostgreSQL store does not have.
 */
export async function runIngestSql(
  sql: Sql,
  chunks: AsyncIterable<Uint8Array>,
  options: IngestOptions,
): Promise<IngestReport> {
  const { limits, maxLineBytes, upload, fallbackName } = uploadOf(options);
  return sql
    .transaction(async (tx) => {
      const lookups = await PreloadedLookups.load(tx);
      let datasetId: string | undefined;
      if (options.dataset) {
        datasetId = lookups.datasetId(options.dataset) ?? undefined;
        if (!datasetId) throw new UnknownDatasetError(options.dataset);
        await lookups.prime(datasetId);
      }
      const stored = new Map(
        (
          await tx.all<{ id: string; roles: string }>(
            "SELECT id, tool_roles AS roles FROM runs WHERE tool_roles IS NOT NULL",
          )
        ).map((r) => [r.id, JSON.parse(r.roles) as Record<string, string>]),
      );
      const roleMaps = new Map<string, RoleMap>();
      const rolesFor = (runId: string) => {
        let map = roleMaps.get(runId);
        if (!map) roleMaps.set(runId, (map = mergeRoles(options.toolRoles ?? stored.get(runId) ?? null)));
        return map;
      };
      const measurer = new TraceMeasurer(lookups, loadPrices(), datasetId);
      const persister = new SqlPersister(tx, upload, options.toolRoles);
      const progress: IngestProgress = { bytes: 0, lines: 0, traces: 0, errors: 0 };
      const errors: IngestError[] = [];
      const warnings: IngestError[] = [];
      const failed: { line: number; message: string }[] = [];
      const fail = (line: number, message: string) => {
        progress.errors++;
        if (errors.length < limits.maxReportedErrors) errors.push({ line, message });
        failed.push({ line, message });
      };
      const every = options.progressEvery ?? 200;
      try {
        await persister.begin();
        await readTraces(chunks, { defaults: options.defaults, fallbackName, maxLineBytes }, progress, {
          trace: async (trace, line) => {
            await lookups.prime(datasetId ?? trace.run.benchmark);
            let prepared;
            try {
              prepared = prepareTrace(trace, measurer, rolesFor);
            } catch (e) {
              return fail(line, `this trace could not be stored: ${lineFailure(e)}`);
            }
            const caveat = finalSqlCaveat(trace);
            await persister.add({
              prepared,
              line,
              done: () => {
                progress.traces++;
                if (caveat && warnings.length < limits.maxReportedErrors)
                  warnings.push({ line, message: `${caveat}; the raw text is kept in the trace` });
              },
              fail: (message) => fail(line, message),
            });
          },
          fail,
          warn: (line, message) => {
            if (warnings.length < limits.maxReportedErrors) warnings.push({ line, message });
          },
          line: () => {
            if (options.onProgress && progress.lines % every === 0) options.onProgress(progress);
          },
        });
        if (progress.lines === 0) throw new EmptyInputError();
        await persister.flush(); // a failing trace of the last batch is counted before the totals are written
        for (const f of failed) await persister.addError(f.line, f.message);
        options.onProgress?.(progress);
        errors.sort((a, b) => a.line - b.line);
        const runs = await persister.finish({ bytes: progress.bytes, lines: progress.lines, errors: progress.errors });
        return reportOf(upload, runs, persister, progress, errors, warnings, false);
      } finally {
        measurer.close();
      }
    })
    .catch((e: unknown) => {
      throw storeFault(e) ?? e;
    });
}

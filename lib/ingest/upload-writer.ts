/**
 * What an upload is written through: one interface, two writers, chosen once by the store's engine
 * (`openUploadWriter` in ingest.ts). `SqliteUploadWriter` (sqlite-writer.ts) writes trace by trace with prepared
 * statements on the transaction's own connection, synchronously; `BatchedUploadWriter` (batched-writer.ts) writes
 * batches of multi-row INSERTs through `Sql` (PostgreSQL). Both run inside the caller's one transaction: an upload
 * that fails, or a process that dies, leaves nothing of it behind.
 */
import type { CompiledQuery } from "kysely";
import type { Dialect } from "@/lib/db/sql";
import { qb, type Column, type InsertEnd } from "@/lib/db/typed";
import type { RoleMap } from "@/lib/sql/classify-step";
import type { StoreLookups } from "./measure";
import type { PreparedTrace } from "./prepare";

export interface RunRef {
  id: string;
  name: string;
  system: string;
  model: string;
  /** What the file did not say: "system", "model" (stored as "unknown"), "dataset" (no dataset linked). */
  unknown: string[];
  /**
   * Where the run's stored name, system or model and the file's differ (a run renamed since its first upload), or
   * another run looks the same: what happened, in a sentence (`runIdentityNotices`).
   */
  notice?: string;
}

export interface UploadInfo {
  id: string;
  source: "cli" | "browser" | "agent" | "otlp";
  fileName?: string;
}

/** A prepared trace on its way to the store, with the line that ends it. */
export interface PendingTrace {
  prepared: PreparedTrace;
  line: number;
  /** The caveat it is stored with (a final SQL taken from a Markdown fence), or null. */
  caveat: string | null;
}

/**
 * The text a writer may hold of the traces of one batch, in characters: a batch ends at its trace count or when its
 * traces' text passes this, so that a file of large traces (up to METRON_MAX_LINE_BYTES each) is not held a hundred
 * at a time. The traces of an open batch are kept to be written again when the store refuses one of them.
 */
export const BATCH_TEXT_CHARS = 16 * 1024 * 1024;

/** The characters of text a prepared trace holds (its row, its steps' cells, its blobs), to bound a batch. */
export function preparedChars(p: PendingTrace["prepared"]): number {
  let n = 0;
  for (const v of p.values) if (typeof v === "string") n += v.length;
  for (const row of p.steps) for (const v of row) if (typeof v === "string") n += v.length;
  for (const [hash, content] of p.blobs) n += hash.length + content.length;
  return n;
}

/** Told what became of each trace, once its write is known: when its batch is written (or refused). */
export interface WriteSink {
  stored(item: PendingTrace, inserted: boolean): void;
  failed(item: PendingTrace, message: string): void;
}

export interface UploadWriter {
  readonly inserted: number;
  readonly duplicates: number;
  /** What measuring reads of this store (datasets, questions, databases). */
  readonly lookups: StoreLookups;
  /** The tool → role mapping of a run: the upload's own, else the run's stored one, else the default (bound). */
  readonly rolesFor: (runId: string) => RoleMap;
  /** The store's file when a reader thread may open it beside the writer (in-worker.ts), else null. */
  readonly readerFile: string | null;
  /** Writes the upload's record. */
  begin(): Promise<void>;
  /** Writes a trace unless the same content is stored; the sink hears the outcome. Throws on a fault of the store. */
  add(item: PendingTrace): void | Promise<void>;
  /** Records a failed line (written with the upload). */
  addError(line: number, message: string): void;
  /** Writes what is pending, the tool counts, the runs' new versions and the upload's totals; the caller commits. */
  finish(totals: { bytes: number; lines: number; errors: number }): Promise<RunRef[]>;
  /**
   * SQLite: the upload's commit will not fold the write-ahead log into the store file (its checkpoint), since the
   * ingest worker does that after the commit, off this thread (in-worker.ts `checkpointAfter`). Returns what undoes
   * it on this connection, called once the transaction has ended either way. Absent on PostgreSQL.
   */
  deferCheckpoint?(): () => void;
}

/** The upload's totals, written when it commits (either engine). */
export function finishUpload(
  dialect: Dialect,
  upload: UploadInfo,
  totals: { bytes: number; lines: number; errors: number },
  counts: { inserted: number; duplicates: number },
  runs: RunRef[],
): CompiledQuery {
  return qb({ dialect })
    .updateTable("uploads")
    .set({
      bytes: totals.bytes,
      lines: totals.lines,
      inserted: counts.inserted,
      duplicates: counts.duplicates,
      error_count: totals.errors,
      run_ids: JSON.stringify(runs.map((r) => r.id)),
    })
    .where("id", "=", upload.id)
    .compile();
}

/** A run as an upload's report names it, with what the file did not say. */
export function runRef(p: PreparedTrace): RunRef {
  return {
    id: p.run.id,
    name: p.run.name,
    system: p.run.system,
    model: p.run.model,
    unknown: [
      ...(p.run.system === "unknown" ? ["system"] : []),
      ...(p.run.model === "unknown" ? ["model"] : []),
      ...(p.run.datasetId ? [] : ["dataset"]),
    ],
  };
}

export const UPLOAD_COLUMNS = ["id", "source", "file_name"] as const satisfies Column<"uploads">[];
export const UPLOAD_ERROR_COLUMNS = ["upload_id", "line", "message"] as const satisfies Column<"upload_errors">[];
export const TOOL_COUNT_COLUMNS = ["run_id", "tool", "role", "calls"] as const satisfies Column<"run_tool_counts">[];
export const RUN_COLUMNS = [
  "id",
  "name",
  "system",
  "model",
  "benchmark",
  "config",
  "dataset_id",
  "tool_roles",
] as const satisfies Column<"runs">[];

/** A run's tool counts add to what the store holds (an upload's calls on top of earlier uploads'). */
export const addToolCounts: InsertEnd<"run_tool_counts"> = (q) =>
  q.onConflict((oc) =>
    oc.columns(["run_id", "tool"]).doUpdateSet((eb) => ({
      calls: eb("run_tool_counts.calls", "+", eb.ref("excluded.calls")),
      role: eb.ref("excluded.role"),
    })),
  );

/** A row whose key is stored already is left as it is: same id, same content (runs, traces, blobs). */
export const keepRun: InsertEnd<"runs"> = (q) => q.onConflict((oc) => oc.column("id").doNothing());
export const keepTrace: InsertEnd<"traces"> = (q) => q.onConflict((oc) => oc.column("id").doNothing());
export const keepBlob: InsertEnd<"blobs"> = (q) => q.onConflict((oc) => oc.column("hash").doNothing());
/** The batched writer learns which traces were new from what the INSERT returns. */
export const keepTraceReturningNew: InsertEnd<"traces"> = (q) =>
  q.onConflict((oc) => oc.column("id").doNothing()).returning("id");

/**
 * What an upload is written through: one interface, two writers, chosen once by the store's engine
 * (`openUploadWriter` in ingest.ts). `SqliteUploadWriter` (sqlite-writer.ts) writes trace by trace with prepared
 * statements on the transaction's own connection, synchronously; `BatchedUploadWriter` (batched-writer.ts) writes
 * batches of multi-row INSERTs through `Sql` (PostgreSQL). Both run inside the caller's one transaction: an upload
 * that fails, or a process that dies, leaves nothing of it behind.
 */
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

/** Told what became of each trace, once its write is known (at once on SQLite, after its batch otherwise). */
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
}

/** The upload's totals, written when it commits (either engine). */
export const FINISH_UPLOAD =
  "UPDATE uploads SET bytes = ?, lines = ?, inserted = ?, duplicates = ?, error_count = ?, run_ids = ? WHERE id = ?";

export function finishValues(
  upload: UploadInfo,
  totals: { bytes: number; lines: number; errors: number },
  counts: { inserted: number; duplicates: number },
  runs: RunRef[],
): [number, number, number, number, number, string, string] {
  return [
    totals.bytes,
    totals.lines,
    counts.inserted,
    counts.duplicates,
    totals.errors,
    JSON.stringify(runs.map((r) => r.id)),
    upload.id,
  ];
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

export const INSERT_UPLOAD = "INSERT INTO uploads (id, source, file_name) VALUES (?, ?, ?)";
export const INSERT_UPLOAD_ERROR = "INSERT INTO upload_errors (upload_id, line, message) VALUES (?, ?, ?)";
export const UPSERT_TOOL_COUNT =
  "INSERT INTO run_tool_counts (run_id, tool, role, calls) VALUES (?, ?, ?, ?) ON CONFLICT (run_id, tool) DO UPDATE SET calls = run_tool_counts.calls + excluded.calls, role = excluded.role";

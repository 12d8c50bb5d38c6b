/** Messages between an ingest and its worker thread (ingest-worker.ts); see in-worker.ts for the flow. */
import type { StepEvent, TraceEvent } from "@/lib/trace/schema";
import type { RunDefaults } from "@/lib/trace/types";
import type { PreparedTrace } from "./prepare";

export interface WorkerInit {
  /** The store's file: the worker opens it read-only for the measurer (datasets, questions, databases, runs). */
  dbPath: string;
  datasetId?: string;
  toolRoles?: Record<string, string>;
  defaults?: RunDefaults;
  fallbackName: string;
  maxLineBytes: number;
  /** A worker of a pool (in-worker.ts `readInPool`): it is sent whole blocks of lines, not the file's chunks. */
  pool?: boolean;
}

export type ToWorker =
  /** To a worker started ahead (in-worker.ts `prewarmIngestWorker`), without its init: the first message. */
  | { type: "init"; init: WorkerInit }
  | { type: "chunk"; bytes: Uint8Array }
  /** A pool's worker: whole lines, the first of them numbered `firstLine`; answered by one `block` message. */
  | { type: "block"; seq: number; firstLine: number; bytes: Uint8Array }
  | { type: "end" }
  /**
   * To the one worker, after its upload committed: fold the store's write-ahead log into the store file (a PASSIVE
   * checkpoint on a connection of its own), answer `checkpointed`, and end.
   */
  | { type: "checkpoint" }
  /**
   * End now (in-worker.ts `stopWorker`): the worker exits at its next turn, between two chunks or blocks, never inside
   * a SQLite call.
   */
  | { type: "stop" };

/** SQLite's answer to `PRAGMA wal_checkpoint(PASSIVE)`: whether it was blocked, the log's pages, the pages copied. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
  ms: number;
}

export type WorkerItem =
  | { kind: "trace"; line: number; prepared: PreparedTrace; caveat: string | null }
  | { kind: "fail"; line: number; message: string }
  | { kind: "warn"; line: number; message: string }
  /** A pool's worker hands event lines over unassembled: a trace's events may lie in several blocks. */
  | { kind: "event"; line: number; event: TraceEvent | StepEvent };

export type FromWorker =
  | { type: "batch"; consumed: number; bytes: number; lines: number; items: WorkerItem[] }
  | { type: "block"; seq: number; items: WorkerItem[] }
  | { type: "done"; bytes: number; lines: number }
  | ({ type: "checkpointed" } & CheckpointResult)
  | { type: "checkpointed"; error: string }
  | { type: "fatal"; message: string };

/**
 * Within one message, a blob's content travels once: `shareBlobs` (the worker, before posting) leaves out the content
 * of a blob an earlier trace of the same message carries, naming it by its hash with a null content, and
 * `resolveBlobs` (the reader, before the items are written) puts it back from that earlier trace. A schema tool's
 * result is the same text in every trace that describes that table: 3,173 blobs of a batch of 256 of the bench's
 * traces held 27 texts, and each repeat was copied by the structured clone on both threads (docs/benchmarks.md).
 * Between the two calls a message's items are not valid PreparedTraces. Each trace still names all of its blobs, so
 * the writer needs no memory of earlier messages (a batch rolled back and written again trace by trace has them all).
 */
export function shareBlobs(items: WorkerItem[]): void {
  const sent = new Set<string>();
  for (const item of items) {
    if (item.kind !== "trace") continue;
    for (const blob of item.prepared.blobs as [string, string | null][]) {
      if (sent.has(blob[0])) blob[1] = null;
      else sent.add(blob[0]);
    }
  }
}

/** Puts back, in place, the blob contents `shareBlobs` left out of a message's items. */
export function resolveBlobs(items: WorkerItem[]): WorkerItem[] {
  const contents = new Map<string, string>();
  for (const item of items) {
    if (item.kind !== "trace") continue;
    for (const blob of item.prepared.blobs as [string, string | null][]) {
      if (blob[1] !== null) contents.set(blob[0], blob[1]);
      else {
        const content = contents.get(blob[0]);
        if (content === undefined) throw new Error(`the ingest worker sent blob ${blob[0]} without its content`);
        blob[1] = content;
      }
    }
  }
  return items;
}

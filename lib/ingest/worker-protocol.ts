/** Messages between an ingest and its worker thread (ingest-worker.ts); see in-worker.ts for the flow. */
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
}

export type ToWorker = { type: "chunk"; bytes: Uint8Array } | { type: "end" };

export type WorkerItem =
  | { kind: "trace"; line: number; prepared: PreparedTrace; caveat: string | null }
  | { kind: "fail"; line: number; message: string }
  | { kind: "warn"; line: number; message: string };

export type FromWorker =
  | { type: "batch"; consumed: number; bytes: number; lines: number; items: WorkerItem[] }
  | { type: "done"; bytes: number; lines: number }
  | { type: "fatal"; message: string };

/**
 * `metron ingest` of a large file into a SQLite store starts its worker thread before the command loads its own
 * modules and opens the store (lib/cli/main.ts), instead of after them: the worker's modules took 0.3–0.45 s to load,
 * which the writer spent waiting for its first batch. The ingest takes it (lib/ingest/in-worker.ts); one it does not
 * take (a file in a format read on the writing thread) is ended with the command.
 */
import { statSync } from "node:fs";
import { Worker } from "node:worker_threads";
import { offerWarmWorker, warmWorkerWaiting, WORKER_LIMITS, workerForUpload } from "@/lib/ingest/in-worker";

/** Starts the worker for an upload of `expectedBytes` when the upload would be read in one (`workerForUpload`). */
export function prewarmIngestWorker(expectedBytes: number): void {
  if (warmWorkerWaiting()) return;
  let file: string | null;
  try {
    file = workerForUpload(expectedBytes);
  } catch {
    return; // a bad METRON_INGEST_WORKER_BYTES: the ingest itself says so
  }
  if (file) offerWarmWorker(file, new Worker(file, { resourceLimits: WORKER_LIMITS }));
}

/** The worker for `metron ingest ARGS…`: the first argument naming a file decides. */
export function startIngestWorkerAhead(argv: string[]): void {
  // PostgreSQL (as lib/db/store.ts tells it): its ingest reads on the writing thread.
  if (/^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? "")) return;
  for (const arg of argv) {
    if (arg.startsWith("-")) continue;
    let size: number | null = null;
    try {
      const s = statSync(arg);
      size = s.isFile() ? s.size : null;
    } catch {
      // not a file: an option's value
    }
    if (size !== null) return prewarmIngestWorker(size);
  }
}

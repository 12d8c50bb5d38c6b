/**
 * Reading an upload in a worker thread (ingest-worker.ts) while this thread writes: the worker parses, validates,
 * assembles, hashes and measures; this thread feeds it the bytes (copied into buffers it transfers, at most
 * `WINDOW` chunks ahead of what it has read) and writes each batch it sends back, in one transaction as before. Two
 * cores then share an ingest that was one thread's work, and memory stays bounded: the worker never holds more
 * than a few chunks, and this thread never more than a few batches.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import type { SplitProgress } from "./split-lines";
import type { FromWorker, ToWorker, WorkerInit, WorkerItem } from "./worker-protocol";

const WINDOW = 4;

/** The compiled worker (dist/cli/ingest-worker.mjs, built with the CLI), or null when it is not built. */
export function ingestWorkerFile(): string | null {
  const root = process.env.METRON_ROOT ?? process.cwd();
  const file = path.join(/*turbopackIgnore: true*/ root, "dist", "cli", "ingest-worker.mjs");
  return existsSync(file) ? file : null;
}

/**
 * Whether an upload of `expectedBytes` into a store file is read in the worker: when the worker is built and the
 * upload is at least `METRON_INGEST_WORKER_BYTES` (default 8 MB; "off" never). Below it, starting a thread costs
 * more than it saves.
 */
export function workerForUpload(expectedBytes: number | undefined): string | null {
  const setting = process.env.METRON_INGEST_WORKER_BYTES;
  if (setting === "off") return null;
  let threshold = 8 * 1024 * 1024;
  if (setting !== undefined && setting !== "") {
    threshold = Number(setting);
    if (!Number.isFinite(threshold) || threshold < 0)
      throw new Error(`METRON_INGEST_WORKER_BYTES must be a number of bytes ≥ 0 or "off", got "${setting}"`);
  }
  if (expectedBytes === undefined || expectedBytes < threshold) return null;
  return ingestWorkerFile();
}

/**
 * Reads `chunks` in the worker; `onItem` gets each trace or failure in order (a writer that returns a promise is
 * awaited before the next item), `onBatch` runs after each batch.
 */
export function readInWorker(
  file: string,
  init: WorkerInit,
  chunks: AsyncIterable<Uint8Array>,
  progress: SplitProgress,
  onItem: (item: WorkerItem) => void | Promise<void>,
  onBatch: () => void,
): Promise<void> {
  // A young generation of 32 MB (V8's default is larger): the worker's garbage is collected sooner, which keeps the
  // ingest's peak memory down for a few per cent of its speed (docs/benchmarks.md).
  const worker = new Worker(file, { workerData: init, resourceLimits: { maxYoungGenerationSizeMb: 32 } });
  const iterator = chunks[Symbol.asyncIterator]();
  let sent = 0;
  let consumed = 0;
  let finished = false;
  let wake: (() => void) | null = null;
  return new Promise<void>((resolve, reject) => {
    const finish = (error?: unknown) => {
      if (finished) return;
      finished = true;
      wake?.();
      void worker.terminate();
      if (error !== undefined) {
        void iterator.return?.();
        reject(error instanceof Error ? error : new Error(String(error)));
      } else resolve();
    };
    // Messages are handled in order, each after the one before it has been written.
    let handled: Promise<void> = Promise.resolve();
    const handle = async (m: FromWorker) => {
      if (finished) return;
      try {
        if (m.type === "fatal") throw new Error(`the ingest worker failed: ${m.message}`);
        progress.bytes = m.bytes;
        progress.lines = m.lines;
        if (m.type === "done") return finish();
        for (const item of m.items) {
          const pending = onItem(item);
          if (pending) await pending;
          if (finished) return;
        }
        consumed = m.consumed;
        onBatch();
        wake?.();
      } catch (e) {
        finish(e);
      }
    };
    worker.on("message", (m: FromWorker) => {
      handled = handled.then(() => handle(m));
    });
    worker.on("error", (e) => finish(e));
    worker.on("exit", (code) => {
      // After the messages it sent before it stopped.
      handled = handled.then(() => finish(new Error(`the ingest worker stopped (exit code ${code}) before the end`)));
    });
    void (async () => {
      try {
        for (;;) {
          while (!finished && sent - consumed >= WINDOW) await new Promise<void>((r) => (wake = r));
          if (finished) return;
          const next = await iterator.next();
          if (finished) return;
          if (next.done) {
            worker.postMessage({ type: "end" } satisfies ToWorker);
            return;
          }
          // Handed over without a copy when the chunk owns its memory (a file stream's chunks do); otherwise copied,
          // since the memory may be shared (Node's small-buffer pool).
          const chunk = next.value;
          const memory =
            chunk.byteOffset === 0 &&
            chunk.byteLength === chunk.buffer.byteLength &&
            chunk.buffer instanceof ArrayBuffer
              ? chunk.buffer
              : new Uint8Array(chunk).buffer;
          worker.postMessage({ type: "chunk", bytes: new Uint8Array(memory) } satisfies ToWorker, [memory]);
          sent++;
        }
      } catch (e) {
        finish(e);
      }
    })();
  });
}

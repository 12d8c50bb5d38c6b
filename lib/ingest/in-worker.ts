/**
 * Reading an upload in a worker thread (ingest-worker.ts) while this thread writes: the worker parses, validates,
 * assembles, hashes and measures; this thread feeds it the bytes (copied into buffers it transfers, at most
 * `WINDOW` chunks ahead of what it has read) and writes each batch it sends back, in one transaction as before. Two
 * cores then share an ingest that was one thread's work, and memory stays bounded: the worker never holds more
 * than `WINDOW` chunks, and this thread never more than the batches they make.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { Buffer } from "node:buffer";
import { Worker } from "node:worker_threads";
import { oversizedLine, type SplitProgress } from "./split-lines";
import {
  resolveBlobs,
  type CheckpointResult,
  type FromWorker,
  type ToWorker,
  type WorkerInit,
  type WorkerItem,
} from "./worker-protocol";

/**
 * Chunks (256 kB from a file) the one worker may hold ahead of what this thread has written. Four (about 37 traces of
 * 40 steps) left each side waiting on the other's jitter: on 150 MB, 4.39–4.56 s; 16 took 4.18–4.22 s for 3 MB more
 * RSS, 64 no less time and 10–17 MB more (docs/benchmarks.md).
 */
const WINDOW = 16;
/** Blocks of whole lines each pool worker may hold ahead of what was written (the pool's measured figures). */
const POOL_WINDOW = 4;
const NEWLINE = 0x0a;

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
 * A young generation of 32 MB (V8's default is larger): the worker's garbage is collected sooner, which keeps the
 * ingest's peak memory down for a few per cent of its speed (docs/benchmarks.md).
 */
export const WORKER_LIMITS = { maxYoungGenerationSizeMb: 32 };

/** How long a worker asked to stop (`stopWorker`) has before it is terminated: it answers between two chunks. */
const STOP_GRACE_MS = 10_000;

/**
 * Ends an ingest worker at its next turn: it is asked to (`stop`) and exits between two chunks or blocks.
 * `Worker.terminate` lands wherever the thread is, and inside a better-sqlite3 call that throws (a trace's SQL that
 * does not prepare, measured while an upload was stopped mid-way) it aborts the whole process, server and all ("FATAL
 * ERROR: v8::ToLocalChecked Empty MaybeLocal", WiseLibs/better-sqlite3#842). A worker still running `STOP_GRACE_MS`
 * later is terminated.
 */
export function stopWorker(worker: Worker): void {
  worker.postMessage({ type: "stop" } satisfies ToWorker);
  const timer = setTimeout(() => void worker.terminate(), STOP_GRACE_MS).unref();
  worker.once("exit", () => clearTimeout(timer));
}

/** A worker thread started ahead of its upload (lib/cli/ingest-ahead.ts), until an ingest takes it. */
let warm: { file: string; worker: Worker; gone: boolean } | null = null;

/**
 * Hands this module a worker of `file` started ahead, without its init, for the next `readInWorker` (or pool) of
 * that file to take. It is created in lib/cli, which the app does not bundle: a `new Worker` whose path the bundler
 * can follow from here (this module's own `workerForUpload`) made Turbopack pull the whole project into the server's
 * build.
 */
export function offerWarmWorker(file: string, worker: Worker): void {
  discardWarmWorker();
  const state = { file, worker, gone: false };
  worker.once("error", () => (state.gone = true));
  worker.once("exit", () => (state.gone = true));
  worker.unref(); // an unused one never holds the process open
  warm = state;
}

/** Whether a worker started ahead waits for an ingest to take it. */
export function warmWorkerWaiting(): boolean {
  return warm !== null;
}

/** Ends the worker started ahead if no ingest took it. */
export function discardWarmWorker(): void {
  if (warm) stopWorker(warm.worker);
  warm = null;
}

/** A worker for an upload: the one started ahead (sent its init) when it is for this file and alive, else a new one. */
function startWorker(file: string, init: WorkerInit): Worker {
  const ahead = warm;
  warm = null;
  if (ahead && ahead.file === file && !ahead.gone) {
    ahead.worker.removeAllListeners();
    ahead.worker.ref();
    ahead.worker.postMessage({ type: "init", init } satisfies ToWorker);
    return ahead.worker;
  }
  if (ahead) stopWorker(ahead.worker);
  return new Worker(file, { workerData: init, resourceLimits: WORKER_LIMITS });
}

/** The worker that read an upload, kept until the upload has committed or failed. */
export interface ReadWorker {
  /** After the commit: the checkpoint the commit left to it (answered once it is done; null if the worker died). */
  checkpoint(): Promise<CheckpointResult | null>;
  /** After a failure: ends the worker. */
  release(): void;
}

/** Checkpoints under way in this process's ingest workers (`checkpointAfter`). */
const checkpoints = new Set<Promise<CheckpointResult | null>>();

/**
 * Has `read`'s worker checkpoint the store after its upload committed, in the background: the commit no longer folds
 * the write-ahead log into the store file on the writing thread (`UploadWriter.deferCheckpoint`). A checkpoint that
 * could not copy everything (a reader still needed a page; `busy`) leaves the rest to the store's next one (a commit
 * of any other write, or the last connection's close).
 */
export function checkpointAfter(read: ReadWorker): void {
  const done = read
    .checkpoint()
    .then((r) => {
      if (r?.busy) console.warn(`checkpoint after an upload: ${r.checkpointed} of ${r.log} log pages copied`);
      return r;
    })
    .finally(() => checkpoints.delete(done));
  checkpoints.add(done);
}

/**
 * Resolves when the checkpoints after this process's uploads are done (a command waits for them before it ends),
 * with what each did (null: its worker had died; the store's next checkpoint does it).
 */
export async function checkpointsSettled(): Promise<(CheckpointResult | null)[]> {
  const out: (CheckpointResult | null)[] = [];
  while (checkpoints.size) out.push(...(await Promise.all([...checkpoints])));
  return out;
}

/**
 * Reads `chunks` in the worker; `onItem` gets each trace or failure in order (a writer that returns a promise is
 * awaited before the next item), `onBatch` runs after each batch. Resolves with the worker, kept for the checkpoint
 * after the upload's commit: the caller calls `checkpointAfter` or `release` on it.
 */
export function readInWorker(
  file: string,
  init: WorkerInit,
  chunks: AsyncIterable<Uint8Array>,
  progress: SplitProgress,
  onItem: (item: WorkerItem) => void | Promise<void>,
  onBatch: () => void,
): Promise<ReadWorker> {
  const worker = startWorker(file, init);
  const kept: ReadWorker = {
    checkpoint: () =>
      new Promise<CheckpointResult | null>((resolve) => {
        const end = (result: CheckpointResult | null) => {
          resolve(result);
          stopWorker(worker);
        };
        // Beside the read's listeners, which ignore what comes after it (`removeAllListeners` would take Node's own
        // too: those that keep the worker's port reading).
        worker.on("message", (m: FromWorker) => {
          if (m.type !== "checkpointed") return;
          if ("error" in m) {
            console.warn(`checkpoint after an upload failed: ${m.error}`);
            end(null);
          } else end(m);
        });
        worker.once("error", () => end(null));
        worker.once("exit", () => end(null));
        worker.postMessage({ type: "checkpoint" } satisfies ToWorker);
      }),
    release: () => stopWorker(worker),
  };
  const iterator = chunks[Symbol.asyncIterator]();
  let sent = 0;
  let consumed = 0;
  let finished = false;
  let wake: (() => void) | null = null;
  return new Promise<ReadWorker>((resolve, reject) => {
    const finish = (error?: unknown) => {
      if (finished) return;
      finished = true;
      wake?.();
      if (error !== undefined) {
        stopWorker(worker);
        void iterator.return?.();
        reject(error instanceof Error ? error : new Error(String(error)));
      } else resolve(kept);
    };
    // Messages are handled in order, each after the one before it has been written.
    let handled: Promise<void> = Promise.resolve();
    const handle = async (m: FromWorker) => {
      if (finished) return;
      try {
        if (m.type === "fatal") throw new Error(`the ingest worker failed: ${m.message}`);
        // A pool's answer (readInPool), never sent to this reader; a checkpoint's comes after the read, to `kept`.
        if (m.type === "block" || m.type === "checkpointed") return;
        progress.bytes = m.bytes;
        progress.lines = m.lines;
        if (m.type === "done") return finish();
        for (const item of resolveBlobs(m.items)) {
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

/**
 * How many worker threads read a large upload (`METRON_INGEST_WORKERS`, default 1). With one, the file's chunks
 * stream through a single worker (`readInWorker`); with more, blocks of whole lines go to a pool (`readInPool`).
 * The default is not sized to the machine: measured on the 2-core machine a pool of two was slower (1.17×) and took
 * 390 MB against 206, and its gain on more cores is bounded by the writing thread, busy about 80 % of an ingest with
 * one worker (docs/benchmarks.md); a machine with cores and memory to spare can ask for more.
 */
export function ingestWorkers(): number {
  const setting = process.env.METRON_INGEST_WORKERS;
  if (setting === undefined || setting === "") return defaultIngestWorkers();
  const n = Number(setting);
  if (!Number.isInteger(n) || n < 1 || n > 64)
    throw new Error(`METRON_INGEST_WORKERS must be a whole number of threads from 1 to 64, got "${setting}"`);
  return n;
}

export const defaultIngestWorkers = () => 1;

/** A block of whole lines for a pool's worker, or a line over the size limit (reported, never buffered). */
export type LineBlock = { firstLine: number; bytes: Uint8Array } | { firstLine: number; oversized: number };

/**
 * Cuts a byte stream into blocks of whole lines, each numbered by its first line, without holding more than a chunk
 * and one line: the line a chunk ends inside is carried to the next block. A line over `maxLineBytes` is dropped as
 * it streams and yielded as `oversized` (its length), as `splitLines` reports it. Each block owns its memory (it is
 * transferred to a worker). `progress` counts the bytes read and the lines handed out.
 */
export async function* lineBlocks(
  chunks: AsyncIterable<Uint8Array>,
  maxLineBytes: number,
  progress: SplitProgress,
): AsyncGenerator<LineBlock> {
  let carry: Uint8Array[] = [];
  let carrySize = 0;
  let carryOversized = false;
  let line = 1;
  const toCarry = (piece: Uint8Array) => {
    if (!carryOversized && carrySize + piece.length > maxLineBytes) {
      carryOversized = true;
      carry = [];
    }
    if (!carryOversized && piece.length) carry.push(piece.slice()); // a copy: the chunk's memory may be reused
    carrySize += piece.length;
  };
  const owned = (head: Uint8Array[], headSize: number, body: Uint8Array): Uint8Array => {
    const out = new Uint8Array(headSize + body.length);
    let at = 0;
    for (const h of head) {
      out.set(h, at);
      at += h.length;
    }
    out.set(body, at);
    return out;
  };
  const newlines = (bytes: Buffer) => {
    let n = 0;
    for (let i = bytes.indexOf(NEWLINE); i !== -1; i = bytes.indexOf(NEWLINE, i + 1)) n++;
    return n;
  };
  for await (const piece of chunks) {
    // A Buffer view (no copy): its indexOf is a memchr.
    const chunk = Buffer.isBuffer(piece) ? piece : Buffer.from(piece.buffer, piece.byteOffset, piece.byteLength);
    progress.bytes += chunk.length;
    let pos = 0;
    let head: Uint8Array[] = [];
    let headSize = 0;
    if (carrySize > 0 || carryOversized) {
      const nl = chunk.indexOf(NEWLINE);
      if (nl === -1) {
        toCarry(chunk);
        continue;
      }
      // The carried line ends in this chunk.
      if (carryOversized || carrySize + nl > maxLineBytes) {
        yield { firstLine: line, oversized: carrySize + nl };
        line++;
        progress.lines = line - 1;
      } else {
        head = [...carry, chunk.subarray(0, nl + 1)];
        headSize = carrySize + nl + 1;
      }
      carry = [];
      carrySize = 0;
      carryOversized = false;
      pos = nl + 1;
    }
    const last = chunk.lastIndexOf(NEWLINE);
    if (last >= pos || headSize > 0) {
      const bytes = owned(head, headSize, chunk.subarray(pos, Math.max(pos, last + 1)));
      const firstLine = line;
      line += newlines(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
      progress.lines = line - 1;
      yield { firstLine, bytes };
      pos = Math.max(pos, last + 1);
    }
    if (pos < chunk.length) toCarry(chunk.subarray(pos));
  }
  // The last line, when the file does not end with a newline.
  if (carryOversized) {
    yield { firstLine: line, oversized: carrySize };
    progress.lines = line;
  } else if (carrySize > 0) {
    yield { firstLine: line, bytes: owned(carry, carrySize, new Uint8Array(0)) };
    progress.lines = line;
  }
}

/**
 * Reads `chunks` in a pool of `workers` threads: blocks of whole lines (`lineBlocks`) go to the worker with the
 * fewest blocks in hand, at most `POOL_WINDOW` per worker ahead of what was written; answers are handed to `onItem` in the
 * file's order whatever order they arrive in, so what is stored, and every line number reported, is what one worker
 * would give. Event lines come back unassembled (`kind: "event"`): the caller assembles them in order.
 */
export function readInPool(
  file: string,
  init: WorkerInit,
  workers: number,
  chunks: AsyncIterable<Uint8Array>,
  progress: SplitProgress,
  onItem: (item: WorkerItem) => void | Promise<void>,
  onBatch: () => void,
): Promise<void> {
  const pool = Array.from({ length: workers }, () => ({
    worker: startWorker(file, { ...init, pool: true }),
    /** Blocks sent and not yet written (the pool hands the next block to the member with fewest). */
    inHand: 0,
  }));
  const answers = new Map<number, { items: WorkerItem[]; member?: (typeof pool)[number] }>();
  let dispatched = 0;
  let written = 0;
  let produced = false;
  let finished = false;
  let wake: (() => void) | null = null;
  return new Promise<void>((resolve, reject) => {
    const finish = (error?: unknown) => {
      if (finished) return;
      finished = true;
      wake?.();
      for (const p of pool) stopWorker(p.worker);
      if (error !== undefined) reject(error instanceof Error ? error : new Error(String(error)));
      else resolve();
    };
    // Answers are written in the file's order, one after another.
    let writing: Promise<void> = Promise.resolve();
    const drain = async () => {
      while (!finished && answers.has(written)) {
        const { items, member } = answers.get(written)!;
        answers.delete(written);
        for (const item of items) {
          const pending = onItem(item);
          if (pending) await pending;
          if (finished) return;
        }
        if (member) member.inHand--;
        written++;
        onBatch();
        wake?.();
      }
      if (produced && written === dispatched) finish();
    };
    const answered = (seq: number, items: WorkerItem[], member?: (typeof pool)[number]) => {
      answers.set(seq, { items, member });
      writing = writing.then(drain).catch((e) => finish(e));
    };
    for (const member of pool) {
      member.worker.on("message", (m: FromWorker) => {
        if (m.type === "fatal") return finish(new Error(`an ingest worker failed: ${m.message}`));
        if (m.type !== "block") return;
        try {
          resolveBlobs(m.items);
        } catch (e) {
          return finish(e);
        }
        answered(m.seq, m.items, member);
      });
      member.worker.on("error", (e) => finish(e));
      // A pool's worker never stops by itself (it waits for blocks until terminated): an exit before the end is a
      // crash, said once the answers it sent before it are written.
      member.worker.on("exit", (code) => {
        writing = writing.then(() => {
          if (!finished) finish(new Error(`an ingest worker stopped (exit code ${code}) before the end`));
        });
      });
    }
    void (async () => {
      try {
        for await (const block of lineBlocks(chunks, init.maxLineBytes, progress)) {
          while (!finished && dispatched - written >= POOL_WINDOW * workers) await new Promise<void>((r) => (wake = r));
          if (finished) return;
          const seq = dispatched++;
          if ("oversized" in block) {
            answered(seq, [
              { kind: "fail", line: block.firstLine, message: oversizedLine(block.oversized, init.maxLineBytes) },
            ]);
            continue;
          }
          const member = pool.reduce((a, b) => (b.inHand < a.inHand ? b : a));
          member.inHand++;
          member.worker.postMessage(
            { type: "block", seq, firstLine: block.firstLine, bytes: block.bytes } satisfies ToWorker,
            [block.bytes.buffer as ArrayBuffer],
          );
        }
        produced = true;
        for (const p of pool) p.worker.postMessage({ type: "end" } satisfies ToWorker);
        writing = writing.then(drain).catch((e) => finish(e));
      } catch (e) {
        finish(e);
      }
    })();
  });
}

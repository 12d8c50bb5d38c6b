/**
 * The ingest worker thread: reads, validates, assembles, hashes and measures traces (the CPU half of an ingest)
 * while the main thread writes them. Compiled with the CLI (scripts/build-cli.mjs) into one CommonJS file with the
 * packages it uses, dist/cli/ingest-worker-body.cjs, which the entry dist/cli/ingest-worker.mjs (ingest-worker-loader.ts)
 * compiles from V8's code cache.
 * Input arrives as transferred chunks of bytes, at most a few ahead of the writer; output leaves in batches, one
 * per chunk read (or per 256 traces), so memory stays bounded whatever the file's size.
 */
import Database from "better-sqlite3";
import { parentPort, workerData } from "node:worker_threads";
import { storeLookups, TraceMeasurer } from "./measure";
import { runRoles } from "./sqlite-writer";
import { prepareTrace } from "./prepare";
import { loadPrices } from "./prices-file";
import { finalSqlCaveat, lineFailure, readTraces } from "./read-traces";
import type { Trace } from "@/lib/trace/types";
import { shareBlobs, type FromWorker, type ToWorker, type WorkerInit, type WorkerItem } from "./worker-protocol";

const BATCH_TRACES = 256;

async function main(port: NonNullable<typeof parentPort>, init: WorkerInit): Promise<void> {
  const reader = new Database(init.dbPath, { readonly: true, fileMustExist: true });
  reader.pragma("busy_timeout = 300000");
  const measurer = new TraceMeasurer(storeLookups(reader), loadPrices(), init.datasetId);
  const rolesFor = runRoles(reader, init.toolRoles);
  if (init.pool) {
    try {
      await poolMember(port, init, measurer, rolesFor);
    } finally {
      measurer.close();
      reader.close();
    }
    return;
  }
  const queue: (Uint8Array | null)[] = [];
  let wake: (() => void) | null = null;
  let checkpointAsked = false;
  let onCheckpoint: (() => void) | null = null;
  port.on("message", (m: ToWorker) => {
    if (m.type === "checkpoint") {
      checkpointAsked = true;
      onCheckpoint?.();
      return;
    }
    queue.push(m.type === "chunk" ? m.bytes : null);
    wake?.();
  });
  const progress = { bytes: 0, lines: 0 };
  let consumed = 0;
  let reported = 0;
  let items: WorkerItem[] = [];
  const post = (m: FromWorker) => port.postMessage(m);
  const flush = () => {
    if (!items.length && consumed === reported) return;
    shareBlobs(items);
    post({ type: "batch", consumed, bytes: progress.bytes, lines: progress.lines, items });
    items = [];
    reported = consumed;
  };
  async function* input(): AsyncGenerator<Uint8Array> {
    for (;;) {
      if (!queue.length) {
        flush();
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
      const chunk = queue.shift()!;
      if (chunk === null) return;
      consumed++;
      flush();
      yield chunk;
    }
  }
  try {
    await readTraces(
      input(),
      { defaults: init.defaults, fallbackName: init.fallbackName, maxLineBytes: init.maxLineBytes },
      progress,
      {
        trace(trace, line) {
          items.push(prepared(trace, line, measurer, rolesFor));
          if (items.length >= BATCH_TRACES) flush();
        },
        fail(line, message) {
          items.push({ kind: "fail", line, message });
        },
        warn(line, message) {
          items.push({ kind: "warn", line, message });
        },
      },
    );
    flush();
    post({ type: "done", bytes: progress.bytes, lines: progress.lines });
  } finally {
    measurer.close();
    reader.close();
  }
  // The writer commits the upload, then asks for the checkpoint its commit did not make (or ends this thread).
  await new Promise<void>((resolve) => (checkpointAsked ? resolve() : (onCheckpoint = resolve)));
  post(checkpoint(init.dbPath));
}

/**
 * Folds the store's write-ahead log into the store file: a PASSIVE checkpoint, which copies what no reader still
 * needs and waits for no one (a page request reading meanwhile, another upload writing). Once a commit's own, on the
 * writing thread: about 0.3 s per 150 MB uploaded, during which a server answered nothing (docs/benchmarks.md).
 */
function checkpoint(file: string): FromWorker {
  const started = performance.now();
  try {
    const db = new Database(file, { fileMustExist: true });
    try {
      const [row] = db.pragma("wal_checkpoint(PASSIVE)") as { busy: number; log: number; checkpointed: number }[];
      return { type: "checkpointed", ...row, ms: performance.now() - started };
    } finally {
      db.close();
    }
  } catch (e) {
    return { type: "checkpointed", error: (e as Error).message };
  }
}

/** One trace's or line's outcome, as `main` and `poolMember` both report it. */
function prepared(
  trace: Trace,
  line: number,
  measurer: TraceMeasurer,
  rolesFor: ReturnType<typeof runRoles>,
): WorkerItem {
  try {
    return { kind: "trace", line, prepared: prepareTrace(trace, measurer, rolesFor), caveat: finalSqlCaveat(trace) };
  } catch (e) {
    return { kind: "fail", line, message: `this trace could not be stored: ${lineFailure(e)}` };
  }
}

/**
 * A worker of a pool (in-worker.ts `readInPool`): each message is a block of whole lines, read, validated, hashed
 * and measured here and answered with all of its items at once; event lines go back unassembled (the writing thread
 * assembles them, since a trace's events may lie in other workers' blocks). Blocks are handled one after another.
 */
async function poolMember(
  port: NonNullable<typeof parentPort>,
  init: WorkerInit,
  measurer: TraceMeasurer,
  rolesFor: ReturnType<typeof runRoles>,
): Promise<void> {
  let chain: Promise<void> = Promise.resolve();
  await new Promise<void>((resolve, reject) => {
    port.on("message", (m: ToWorker) => {
      chain = chain.then(async () => {
        if (m.type === "end") return resolve();
        if (m.type !== "block") return;
        const items: WorkerItem[] = [];
        await readTraces(
          (async function* () {
            yield m.bytes;
          })(),
          {
            defaults: init.defaults,
            fallbackName: init.fallbackName,
            maxLineBytes: init.maxLineBytes,
            firstLine: m.firstLine,
          },
          { bytes: 0, lines: 0 },
          {
            trace: (trace, line) => void items.push(prepared(trace, line, measurer, rolesFor)),
            fail: (line, message) => void items.push({ kind: "fail", line, message }),
            warn: (line, message) => void items.push({ kind: "warn", line, message }),
            event: (event, line) => void items.push({ kind: "event", line, event }),
          },
        );
        shareBlobs(items);
        port.postMessage({ type: "block", seq: m.seq, items } satisfies FromWorker);
      }, reject);
      chain.catch(reject);
    });
  });
}

if (parentPort) {
  const port = parentPort;
  // Asked to end (an upload stopped or failed mid-way, a worker no ingest took): a message is handled between two
  // chunks or blocks, so the thread never ends inside a SQLite call, which aborts the whole process.
  port.on("message", (m: ToWorker) => {
    if (m.type === "stop") process.exit(0);
  });
  const run = (init: WorkerInit) =>
    main(port, init).catch((e: unknown) =>
      port.postMessage({ type: "fatal", message: (e as Error).stack ?? String(e) } satisfies FromWorker),
    );
  // Started ahead of its upload (lib/cli/ingest-ahead.ts): its modules are loaded by now, and the upload's
  // init comes as the first message. `main` takes the port's next messages (it listens before it first awaits).
  if (workerData) void run(workerData as WorkerInit);
  else port.once("message", (m: ToWorker) => void (m.type === "init" && run(m.init)));
}

/**
 * The ingest worker thread: reads, validates, assembles, hashes and measures traces (the CPU half of an ingest)
 * while the main thread writes them. Compiled into dist/cli/ingest-worker.mjs with the CLI (scripts/build-cli.mjs).
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
import type { FromWorker, ToWorker, WorkerInit, WorkerItem } from "./worker-protocol";

const BATCH_TRACES = 256;

async function main(port: NonNullable<typeof parentPort>, init: WorkerInit): Promise<void> {
  const reader = new Database(init.dbPath, { readonly: true, fileMustExist: true });
  reader.pragma("busy_timeout = 300000");
  const measurer = new TraceMeasurer(storeLookups(reader), loadPrices(), init.datasetId);
  const rolesFor = runRoles(reader, init.toolRoles);
  const queue: (Uint8Array | null)[] = [];
  let wake: (() => void) | null = null;
  port.on("message", (m: ToWorker) => {
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
          try {
            const prepared = prepareTrace(trace, measurer, rolesFor);
            items.push({ kind: "trace", line, prepared, caveat: finalSqlCaveat(trace) });
          } catch (e) {
            items.push({ kind: "fail", line, message: `this trace could not be stored: ${lineFailure(e)}` });
          }
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
}

if (parentPort) {
  const port = parentPort;
  main(port, workerData as WorkerInit).catch((e: unknown) =>
    port.postMessage({ type: "fatal", message: (e as Error).stack ?? String(e) } satisfies FromWorker),
  );
}

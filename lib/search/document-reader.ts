/**
 * Reads the search index's documents in a worker thread of its own, on a read-only connection to the store's file,
 * while the indexing connection writes the batch it read before (issue 36). Building the index is two kinds of work:
 * reading the documents (the traces' rows, their arguments and results decoded from JSON: about a third) and FTS5
 * tokenizing and writing them (the rest). One thread did both; with this reader, the writing connection does only the
 * second, and a 100k-trace store is indexed in about 5/6 of the time (docs/benchmarks.md).
 *
 * The worker's code is inline (no file to bundle) and loads better-sqlite3 from the project's root (METRON_ROOT, else
 * the working directory). It answers each request with the batch's documents, or the error it met. An idle reader ends
 * after `IDLE_MS`; it never holds the process open while no read is awaited.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { Worker } from "node:worker_threads";

/**
 * A batch's documents in rowid order: rowids relative to the batch's base, and their texts as UTF-8, one after another
 * in `bytes`, document i (of `count`) ending at `ends[i]`. Handed over as transferred memory, not strings: copying
 * strings between threads and encoding them again for SQLite cost the writing thread a second of a 30-second build.
 * Once written, a batch's memory is given back to the worker (`recycle`) to be filled again.
 */
export interface DocumentRows {
  count: number;
  rids: Float64Array<ArrayBuffer>;
  ends: Int32Array<ArrayBuffer>;
  bytes: ArrayBuffer;
}

const IDLE_MS = 60_000;
/** A returned buffer larger than this is not kept for reuse (a batch is usually a few MB). */
const KEEP_BYTES = 16 * 1024 * 1024;

const CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
const read = db.prepare(workerData.sql).raw();
// Buffers the writing thread has given back, to fill again: a batch's memory is reused, not left to the collectors
// of two threads (memory handed over and never collected grew the process by about 90 MB in a 100 MB ingest).
const pool = [];
parentPort.on("message", (m) => {
  if (m.give) {
    if (m.give.bytes.byteLength <= workerData.keepBytes) pool.push(m.give); // a rare large batch's memory is let go
    return;
  }
  let { bytes, rids, ends } = pool.pop() ?? {
    bytes: new ArrayBuffer(1 << 20),
    rids: new Float64Array(4096),
    ends: new Int32Array(4096),
  };
  let out = Buffer.from(bytes);
  let count = 0;
  let at = 0;
  try {
    // Row by row into the buffer, which doubles when full: no batch of strings is held at once.
    for (const [rid, text] of read.iterate({ ...workerData.params, ids: m.ids })) {
      if (count === rids.length) {
        const r = new Float64Array(count * 2); r.set(rids); rids = r;
        const e = new Int32Array(count * 2); e.set(ends); ends = e;
      }
      if (text != null) {
        const need = at + text.length * 3;
        if (need > workerData.maxBytes) {
          // Over the batch's bound: the writing thread reads this batch itself, streamed by SQLite.
          pool.push({ bytes, rids, ends });
          parentPort.postMessage({ n: m.n, over: true });
          return;
        }
        if (need > out.length) {
          bytes = new ArrayBuffer(Math.min(workerData.maxBytes, Math.max(need, out.length * 2)));
          const grown = Buffer.from(bytes);
          out.copy(grown, 0, 0, at);
          out = grown;
        }
        at += out.write(text, at);
      }
      rids[count] = rid;
      ends[count++] = at;
    }
  } catch (e) {
    pool.push({ bytes, rids, ends });
    parentPort.postMessage({ n: m.n, error: String((e && e.message) || e) });
    return;
  }
  parentPort.postMessage({ n: m.n, docs: { count, rids, ends, bytes } }, [rids.buffer, ends.buffer, bytes]);
});
`;

interface Waiting {
  resolve: (rows: DocumentRows | null) => void;
  reject: (e: Error) => void;
}

export class DocumentReader {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, Waiting>();
  private next = 0;
  private failure: Error | null = null;
  private idle: NodeJS.Timeout | null = null;

  /**
   * `sql` selects a batch's documents (`rid`, `content`) for the JSON array of trace ids bound as `@ids`, with
   * `params` bound beside it.
   */
  constructor(file: string, sql: string, params: Record<string, number>, maxBytes: number) {
    const root = process.env.METRON_ROOT ?? process.cwd();
    const sqliteModule = createRequire(path.join(root, "package.json")).resolve("better-sqlite3");
    this.worker = new Worker(CODE, {
      eval: true,
      workerData: {
        module: sqliteModule,
        file,
        sql,
        params,
        maxBytes,
        keepBytes: Math.min(maxBytes, KEEP_BYTES),
      },
    });
    this.worker.unref();
    this.worker.on("message", (m: { n: number; docs?: DocumentRows; over?: boolean; error?: string }) => {
      const w = this.waiting.get(m.n);
      this.waiting.delete(m.n);
      this.settled();
      if (!w) return;
      if (m.error !== undefined) w.reject(new Error(`the search index's document reader: ${m.error}`));
      else w.resolve(m.over ? null : m.docs!);
    });
    this.worker.on("error", (e: unknown) => this.fail(e instanceof Error ? e : new Error(String(e))));
    this.worker.on("exit", (code) => this.fail(new Error(`the search index's document reader exited (${code})`)));
    this.settled();
  }

  /** Whether the reader can still read (its worker neither failed nor was closed). */
  get alive(): boolean {
    return this.failure === null;
  }

  /**
   * The documents of these traces, read in the worker; null when their text passes the batch's bound (`maxBytes` of
   * UTF-8), for the caller to read itself. Rejects if the worker fails or is closed first.
   */
  read(ids: string[]): Promise<DocumentRows | null> {
    if (this.failure) return Promise.reject(this.failure);
    const n = this.next++;
    const p = new Promise<DocumentRows | null>((resolve, reject) => this.waiting.set(n, { resolve, reject }));
    if (this.waiting.size === 1) this.worker.ref(); // an awaited read keeps the process alive until it is answered
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.worker.postMessage({ n, ids: JSON.stringify(ids) });
    return p;
  }

  /** Gives a batch's memory back to the worker, which fills it again for a later batch (the batch is unusable after). */
  recycle(docs: DocumentRows): void {
    if (this.failure || docs.bytes.byteLength === 0) return;
    const { bytes, rids, ends } = docs;
    this.worker.postMessage({ give: { bytes, rids, ends } }, [bytes, rids.buffer, ends.buffer]);
  }

  /** Ends the worker; reads not yet answered reject. */
  close(): void {
    this.fail(new Error("the search index's document reader was closed"));
  }

  private settled() {
    if (this.waiting.size > 0 || this.failure) return;
    this.worker.unref();
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => this.close(), IDLE_MS);
    this.idle.unref();
  }

  private fail(e: Error) {
    if (this.failure) return;
    this.failure = e;
    if (this.idle) clearTimeout(this.idle);
    for (const w of this.waiting.values()) w.reject(e);
    this.waiting.clear();
    void this.worker.terminate();
  }
}

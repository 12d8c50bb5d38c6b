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
 * in `bytes`, document i ending at `ends[i]`. Handed over as transferred memory, not strings: copying strings between
 * threads and encoding them again for SQLite cost the writing thread a second of a 30-second build.
 */
export interface DocumentRows {
  rids: Float64Array;
  ends: Int32Array;
  bytes: ArrayBuffer;
}

const IDLE_MS = 60_000;

const CODE = `
const { parentPort, workerData } = require("node:worker_threads");
const Database = require(workerData.module);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
const read = db.prepare(workerData.sql).raw();
parentPort.on("message", (m) => {
  let rows;
  try {
    rows = read.all({ ...workerData.params, ids: m.ids });
  } catch (e) {
    parentPort.postMessage({ n: m.n, error: String((e && e.message) || e) });
    return;
  }
  const rids = new Float64Array(rows.length);
  const ends = new Int32Array(rows.length);
  let size = 0;
  for (const r of rows) size += r[1] == null ? 0 : Buffer.byteLength(r[1]);
  const bytes = Buffer.allocUnsafeSlow(size);
  let at = 0;
  for (let i = 0; i < rows.length; i++) {
    rids[i] = rows[i][0];
    if (rows[i][1] != null) at += bytes.write(rows[i][1], at);
    ends[i] = at;
  }
  const docs = { rids, ends, bytes: bytes.buffer };
  parentPort.postMessage({ n: m.n, docs }, [rids.buffer, ends.buffer, bytes.buffer]);
});
`;

interface Waiting {
  resolve: (rows: DocumentRows) => void;
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
  constructor(file: string, sql: string, params: Record<string, number>) {
    const root = process.env.METRON_ROOT ?? process.cwd();
    const sqliteModule = createRequire(path.join(root, "package.json")).resolve("better-sqlite3");
    this.worker = new Worker(CODE, { eval: true, workerData: { module: sqliteModule, file, sql, params } });
    this.worker.unref();
    this.worker.on("message", (m: { n: number; docs?: DocumentRows; error?: string }) => {
      const w = this.waiting.get(m.n);
      this.waiting.delete(m.n);
      this.settled();
      if (!w) return;
      if (m.error !== undefined) w.reject(new Error(`the search index's document reader: ${m.error}`));
      else w.resolve(m.docs!);
    });
    this.worker.on("error", (e) => this.fail(e));
    this.worker.on("exit", (code) => this.fail(new Error(`the search index's document reader exited (${code})`)));
    this.settled();
  }

  /** Whether the reader can still read (its worker neither failed nor was closed). */
  get alive(): boolean {
    return this.failure === null;
  }

  /** The documents of these traces, read in the worker; rejects if the worker fails or is closed first. */
  read(ids: string[]): Promise<DocumentRows> {
    if (this.failure) return Promise.reject(this.failure);
    const n = this.next++;
    const p = new Promise<DocumentRows>((resolve, reject) => this.waiting.set(n, { resolve, reject }));
    if (this.waiting.size === 1) this.worker.ref(); // an awaited read keeps the process alive until it is answered
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.worker.postMessage({ n, ids: JSON.stringify(ids) });
    return p;
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

/**
 * The SQLite store's search indexer: FTS5 documents (`search_docs`, contentless: the index keeps no copy of the
 * text), written with prepared statements on the store's connection, one rowid range per trace (`search_indexed`),
 * never waiting for the write lock. The documents
 * are made by a SELECT with SQLite's JSON functions, written here as SQLite's own SQL (FTS5 and `json_tree`
 * are this engine's alone); the bookkeeping is compiled by Kysely from the schema. A long build (the background
 * indexer, `metron search`) may read the documents in a worker thread while this connection writes
 * (lib/search/document-reader.ts); a short one reads and writes them in one INSERT … SELECT.
 */
import type Database from "better-sqlite3";
import type { Sql } from "@/lib/db/sql";
import { insertText, many, qb, write } from "@/lib/db/typed";
import { selectedTraceIds, type TraceSelection } from "@/lib/db/typed-sql";
import { nonNegativeNumber, positiveNumber } from "@/lib/config/env";
import { DocumentReader, type DocumentRows } from "./document-reader";
import { SEARCH_SPAN, searchLimits } from "./limits";
import { NOTE_KIND, REMOVALS_KIND, replaceNote, runsDigest } from "./complete-note";
import type { SearchIndexer, SyncOptions } from "./search-indexer";

export function sqliteIndexer(sql: Sql, sqlite: Database.Database): SearchIndexer {
  return {
    sync: async (opts = {}) => syncSqliteIndex(sqlite, opts),
    remove: (selection) => removeFromSqliteIndex(sql, selection),
  };
}

/**
 * The words of a stored JSON value (arguments and results are stored as JSON): its strings and numbers unescaped
 * and joined, so `"a\\nb"` indexes as the words a and b; text that is not JSON as it is.
 */
const TEXT_OF = (x: string) =>
  `coalesce(CASE WHEN json_valid(${x}) THEN (SELECT group_concat(atom, ' ') FROM json_tree(${x}) WHERE atom IS NOT NULL) ELSE ${x} END, '')`;

/**
 * What a connection knows of the store's content, in O(1): `data_version` moves when another connection commits,
 * `total_changes()` when this one writes. Equal stamps: the same rows.
 */
function contentStamp(sqlite: Database.Database): string {
  const version = sqlite.pragma("data_version", { simple: true }) as number;
  return `${version}:${(sqlite.prepare("SELECT total_changes() AS n").get() as { n: number }).n}`;
}

/** Per connection, the stamp at which nothing was left to index (the counts below walk both tables: 25 ms at 1M). */
const completeAt = new WeakMap<Database.Database, string>();

/** Whether the last sync on this connection found every trace indexed and nothing has changed since (tests). */
export function knownComplete(sqlite: Database.Database): boolean {
  return completeAt.get(sqlite) === contentStamp(sqlite);
}

/**
 * The store's note that every trace was indexed (lib/search/complete-note.ts), for a connection that has not counted
 * yet (a server's first search after its start, another process). Its stamp here: the traces' highest rowid (an
 * insert moves it), the runs' versions and the removals' mark, read in O(runs).
 */
function traceStamp(sqlite: Database.Database): string {
  const q = qb({ dialect: "sqlite" });
  const { m } = sqlite
    .prepare(
      q
        .selectFrom("traces")
        .select((eb) => eb.fn.coalesce(eb.fn.max("rowid" as "id"), eb.lit(0)).as("m"))
        .compile().sql,
    )
    .get() as { m: number };
  const mark = sqlite
    .prepare(
      q
        .selectFrom("derived_cache")
        .select("versions")
        .where("kind", "=", REMOVALS_KIND)
        .where("runs", "=", "")
        .compile().sql,
    )
    .get(REMOVALS_KIND, "") as { versions: string } | undefined;
  const runs = sqlite.prepare(q.selectFrom("runs").select(["id", "version"]).orderBy("id").compile().sql).all() as {
    id: string;
    version: number;
  }[];
  return `${m}|${runsDigest(mark?.versions, runs)}`;
}

/** Whether the store's note says every trace was indexed at this stamp. */
function notedComplete(sqlite: Database.Database, stamp: string): boolean {
  const q = qb({ dialect: "sqlite" });
  const row = sqlite
    .prepare(
      q.selectFrom("derived_cache").select("versions").where("kind", "=", NOTE_KIND).where("runs", "=", "").compile()
        .sql,
    )
    .get(NOTE_KIND, "") as { versions: string } | undefined;
  return row?.versions === stamp;
}

/**
 * Leaves the note (`traces`: read before the counts that found nothing missing), unless the store is busy. Its own
 * write moves this connection's stamp (`completeAt`, read before the counts): the connection still knows the index
 * complete if no other connection committed since.
 */
function noteComplete(sqlite: Database.Database, traces: string, stamp: string): void {
  if (notedComplete(sqlite, traces)) return;
  const version = dataVersion(sqlite);
  try {
    withoutWaiting(sqlite, () =>
      sqlite
        .prepare(insertText("sqlite", "derived_cache", ["kind", "runs", "versions", "value"], 1, replaceNote))
        .run(NOTE_KIND, "", traces, "{}"),
    );
  } catch (e) {
    if (!busy(e)) throw e; // a busy store: the next sync that finds the index complete leaves it
    return;
  }
  if (version === Number(stamp.split(":")[0])) completeAt.set(sqlite, contentStamp(sqlite));
}

const busy = (e: unknown) => (e as { code?: string }).code === "SQLITE_BUSY";

/**
 * Runs `f` without waiting for the write lock: better-sqlite3 waits synchronously, and a server that waited for its
 * own upload's lock would stop answering. A busy store leaves the rest to the next search or the background indexer.
 */
function withoutWaiting<T>(sqlite: Database.Database, f: () => T): T {
  const busyBefore = sqlite.pragma("busy_timeout", { simple: true }) as number;
  sqlite.pragma("busy_timeout = 0");
  try {
    return f();
  } finally {
    sqlite.pragma(`busy_timeout = ${busyBefore}`);
  }
}

/**
 * A batch's documents, rowids relative to its base: trace k of the batch (k from 0) at (k + 1) × @span, its question,
 * final SQL and gold SQL at + 0 … 2, step i at + 3 + i; in rowid order. Results over 200 kB are indexed as their first
 * characters, raw (not decoded): decoding them costs too much. The same statement reads the documents on the indexing
 * connection and in the document reader's worker.
 */
const DOCUMENTS = `SELECT rid, content FROM (
       SELECT (j.key + 1) * @span AS rid, substr(coalesce(t.question_text, '') || ' ' || coalesce(t.evidence, ''), 1, @max) AS content
         FROM json_each(@ids) j CROSS JOIN traces t ON t.id = j.value
       UNION ALL SELECT (j.key + 1) * @span + 1, substr(t.final_sql, 1, @max)
         FROM json_each(@ids) j CROSS JOIN traces t ON t.id = j.value WHERE t.final_sql IS NOT NULL
       UNION ALL SELECT (j.key + 1) * @span + 2, substr(t.gold_sql, 1, @max)
         FROM json_each(@ids) j CROSS JOIN traces t ON t.id = j.value WHERE t.gold_sql IS NOT NULL
       UNION ALL SELECT (x.k + 1) * @span + 3 + x.seq,
         substr(x.tool || ' ' || ${TEXT_OF("x.args")} || ' ' || x.content || ' ' || x.error || ' ' || ${TEXT_OF("x.res")}, 1, @max)
         FROM (SELECT j.key AS k, s.seq, coalesce(s.tool, '') AS tool, s.args, coalesce(s.content, '') AS content, coalesce(s.error, '') AS error,
                 CASE WHEN s.result IS NOT NULL THEN s.result WHEN length(b.content) <= 200000 THEN b.content ELSE substr(b.content, 1, @max) END AS res
               FROM json_each(@ids) j CROSS JOIN steps s ON s.trace_id = j.value AND s.seq < @span - 3
               LEFT JOIN blobs b ON b.hash = s.result_blob) x
     ) ORDER BY rid`;

/** Traces per batch: a batch is one transaction and one statement of documents. */
const BATCH = 200;
/** Batches the document reader reads ahead of the one being written. */
const AHEAD = 3;

/** A batch asked of the document reader, with what the store was when it was asked (see `current`). */
interface Ahead {
  ids: string[];
  dataVersion: number;
  epoch: number;
  docs: Promise<DocumentRows | null>;
}

/**
 * Per connection, the document reader and the batches it reads ahead, kept between syncs (the server indexes in short
 * slices). A batch read ahead is written only if nothing changed the store since it was asked: no other connection
 * committed (`data_version`) and this connection wrote nothing but the index (`epoch`, moved when `total_changes()`
 * differs from what the indexer's own writes left). Otherwise its traces are read again in the write transaction.
 */
interface ReadAhead {
  reader: DocumentReader;
  ahead: Ahead[];
  cursor: number;
  epoch: number;
  ownChanges: number;
  /** A sync is writing through this read-ahead. */
  running: boolean;
}
const readAheads = new WeakMap<Database.Database, ReadAhead>();
/** Connections whose document reader failed: indexed on one thread from then on (the failure is logged once). */
const readerFailed = new WeakSet<Database.Database>();

/** Traces waiting from which a sync that may read ahead starts the document reader; 0: never. */
function readerThreshold(): number {
  return nonNegativeNumber("METRON_SEARCH_READER_TRACES", 2000);
}

/**
 * The most text (UTF-8, counted as up to 3 bytes a character) the reader hands over for one batch; a batch with more
 * is read on the writing thread, streamed by SQLite. At most 1,024 MB (the offsets are 32-bit).
 */
function readerBatchBytes(): number {
  return Math.min(1024, positiveNumber("METRON_SEARCH_READER_BATCH_MB", 64, { integer: false })) * 1024 * 1024;
}

function startReadAhead(sqlite: Database.Database, maxChars: number): ReadAhead | null {
  if (sqlite.memory || !sqlite.name || readerFailed.has(sqlite)) return null;
  try {
    const reader = new DocumentReader(sqlite.name, DOCUMENTS, { span: SEARCH_SPAN, max: maxChars }, readerBatchBytes());
    const state: ReadAhead = {
      reader,
      ahead: [],
      cursor: 0,
      epoch: 0,
      ownChanges: totalChanges(sqlite),
      running: false,
    };
    readAheads.set(sqlite, state);
    return state;
  } catch (e) {
    readerFailedOn(sqlite, e as Error);
    return null;
  }
}

function readerFailedOn(sqlite: Database.Database, e: Error) {
  if (!readerFailed.has(sqlite)) console.error(`metron search index: ${e.message}; indexing on one thread from now on`);
  readerFailed.add(sqlite);
  stopReadAhead(sqlite);
}

function stopReadAhead(sqlite: Database.Database) {
  const state = readAheads.get(sqlite);
  readAheads.delete(sqlite);
  state?.reader.close();
}

const totalChanges = (sqlite: Database.Database) =>
  (sqlite.prepare("SELECT total_changes() AS n").get() as { n: number }).n;
const dataVersion = (sqlite: Database.Database) => sqlite.pragma("data_version", { simple: true }) as number;

/** Moves the epoch if this connection wrote something since the indexer's last write (another request's write). */
function noteForeignWrites(sqlite: Database.Database, state: ReadAhead) {
  const n = totalChanges(sqlite);
  if (n !== state.ownChanges) state.epoch++;
  state.ownChanges = n;
}

function syncSqliteIndex(
  sqlite: Database.Database,
  opts: SyncOptions = {},
): Promise<{ indexed: number; pending: number }> | { indexed: number; pending: number } {
  // Nothing written by anyone since this connection found the index complete: no count (every search asks).
  if (knownComplete(sqlite)) return { indexed: 0, pending: 0 };
  const { maxChars } = searchLimits();
  const started = performance.now();
  // Most searches find nothing to index: two counts say so without walking the traces. The stamp is taken before
  // them: a commit after it moves it, so the next sync counts again.
  let stamp = contentStamp(sqlite);
  // The store's note, left by an earlier sync of any connection or process: no count while it holds.
  let traces = traceStamp(sqlite);
  if (notedComplete(sqlite, traces)) {
    completeAt.set(sqlite, stamp);
    return { indexed: 0, pending: 0 };
  }
  const q = qb({ dialect: "sqlite" });
  const missing = () =>
    (
      sqlite
        .prepare(
          q
            .selectNoFrom((eb) =>
              eb(
                eb.selectFrom("traces").select(eb.fn.countAll<number>().as("a")),
                "-",
                eb.selectFrom("search_indexed").select(eb.fn.countAll<number>().as("b")),
              ).as("n"),
            )
            .compile().sql,
        )
        .get() as { n: number }
    ).n;
  const waiting = missing();
  if (waiting <= 0) {
    stopReadAhead(sqlite);
    completeAt.set(sqlite, stamp);
    noteComplete(sqlite, traces, stamp);
    return { indexed: 0, pending: 0 };
  }
  let state = readAheads.get(sqlite) ?? null;
  if (state && !state.reader.alive) {
    stopReadAhead(sqlite);
    state = null;
  }
  const threshold = readerThreshold();
  if (!state && opts.readAhead && threshold > 0 && waiting >= threshold) state = startReadAhead(sqlite, maxChars);
  const pending = sqlite.prepare(
    `SELECT t.rowid AS r, t.id FROM traces t WHERE t.rowid > ? AND NOT EXISTS (SELECT 1 FROM search_indexed si WHERE si.trace_id = t.id)
     ORDER BY t.rowid LIMIT ${BATCH}`,
  );
  // A batch's documents in one statement, in rowid order: FTS5 writes its pending terms out as a new segment at every
  // statement of a transaction (the statement's savepoint) and whenever a rowid is not above the last, so a statement
  // per trace made a segment per trace and merging them took half the build (20 s against 13 s for 300 MB).
  const readDocs = sqlite.prepare(
    `INSERT INTO search_docs (rowid, content) SELECT @base + rid, content FROM (${DOCUMENTS})`,
  );
  // Documents the reader read: handed to the statement as the rows of a table this connection serves from memory.
  if (state) serveReadRows(sqlite);
  const writeRead = state
    ? sqlite.prepare(`INSERT INTO search_docs (rowid, content) SELECT @base + rid, content FROM metron_read_documents`)
    : null;
  // The batch's traces still waiting, read in the write transaction: a trace deleted or indexed since the batch was
  // chosen is neither indexed nor marked.
  const stillWaiting = sqlite.prepare(
    `SELECT j.value AS id FROM json_each(?) j WHERE EXISTS (SELECT 1 FROM traces t WHERE t.id = j.value)
       AND NOT EXISTS (SELECT 1 FROM search_indexed si WHERE si.trace_id = j.value) ORDER BY j.key`,
  );
  const mark = sqlite.prepare(insertText("sqlite", "search_indexed", ["trace_id", "base"]));
  const maxBase = sqlite.prepare(
    q
      .selectFrom("search_indexed")
      .select((eb) => eb.fn.coalesce(eb.fn.max("base"), eb.lit(0)).as("b"))
      .compile().sql,
  );
  let indexed = 0;
  const nextBatch = (from: number) => pending.all(from) as { r: number; id: string }[];

  /** Asks the reader for batches until AHEAD are out (each with the store's state when asked). */
  const fill = (s: ReadAhead) => {
    while (s.reader.alive && s.ahead.length < AHEAD) {
      noteForeignWrites(sqlite, s);
      const version = dataVersion(sqlite);
      let batch = nextBatch(s.cursor);
      if (!batch.length && s.cursor > 0 && !s.ahead.length) batch = nextBatch((s.cursor = 0)); // rowids below, once
      if (!batch.length) return;
      s.cursor = batch.at(-1)!.r;
      const ids = batch.map((b) => b.id);
      const docs = s.reader.read(ids);
      docs.catch(() => {}); // awaited in turn; a batch never awaited (the sync stopped) has no one to tell
      s.ahead.push({ ids, dataVersion: version, epoch: s.epoch, docs });
    }
  };

  /** Writes one batch: the documents read ahead if the store is as it was when they were asked, else read here. */
  const writeBatch = (ids: string[], read: { rows: DocumentRows; dataVersion: number; epoch: number } | null) =>
    sqlite
      .transaction(() => {
        const base = (maxBase.get() as { b: number }).b; // read inside the write: another process may index too
        const still = (stillWaiting.all(JSON.stringify(ids)) as { id: string }[]).map((r) => r.id);
        if (state) noteForeignWrites(sqlite, state);
        const current =
          read !== null &&
          state !== null &&
          read.epoch === state.epoch &&
          read.dataVersion === dataVersion(sqlite) &&
          still.length === ids.length;
        if (current) {
          readRows = read.rows;
          try {
            writeRead!.run({ base });
          } finally {
            readRows = null;
          }
        } else if (still.length) readDocs.run({ base, span: SEARCH_SPAN, max: maxChars, ids: JSON.stringify(still) });
        still.forEach((id, k) => mark.run(id, base + (k + 1) * SEARCH_SPAN));
        return still.length;
      })
      .immediate();

  const overBudget = () => opts.budgetMs !== undefined && performance.now() - started > opts.budgetMs;
  const finish = () => {
    stamp = contentStamp(sqlite); // after this sync's own writes
    traces = traceStamp(sqlite);
    const left = Math.max(0, missing());
    if (left === 0) {
      completeAt.set(sqlite, stamp);
      stopReadAhead(sqlite);
      noteComplete(sqlite, traces, stamp);
    }
    return { indexed, pending: left };
  };

  // Never wait for the write lock here (`withoutWaiting`).

  /** Reads and writes batches on this thread until none is left, the budget is spent or the store is busy. */
  const writeHere = () =>
    withoutWaiting(sqlite, () => {
      let cursor = 0;
      for (;;) {
        const batch = nextBatch(cursor);
        if (!batch.length) return;
        try {
          indexed += writeBatch(
            batch.map((b) => b.id),
            null,
          );
        } catch (e) {
          if (busy(e)) return;
          throw e;
        }
        cursor = batch.at(-1)!.r;
        if (overBudget()) return;
      }
    });

  if (!state) {
    writeHere();
    return finish();
  }

  const s = state;
  // One sync at a time reads ahead on a connection (two searches may ask at once): the other leaves the work to it.
  if (s.running) return { indexed: 0, pending: waiting };
  s.running = true;
  return (async () => {
    try {
      return await readAheadLoop();
    } finally {
      s.running = false;
    }
  })();

  async function readAheadLoop() {
    for (;;) {
      fill(s);
      const next = s.ahead[0];
      if (!next) break;
      let rows: DocumentRows | null;
      try {
        rows = await next.docs;
      } catch (e) {
        // The worker failed or its statement did: this batch and the rest are read here (where a statement that
        // fails again says why to the caller).
        readerFailedOn(sqlite, e as Error);
        rows = null;
      }
      let wrote: number;
      try {
        wrote = withoutWaiting(sqlite, () =>
          writeBatch(next.ids, rows && { rows, dataVersion: next.dataVersion, epoch: next.epoch }),
        );
      } catch (e) {
        if (busy(e)) break; // the batch stays first, its documents kept for the next sync to check and write
        throw e;
      }
      s.ahead.splice(s.ahead.indexOf(next), 1);
      if (rows) s.reader.recycle(rows); // written (or read again here): its memory goes back to be filled again
      s.ownChanges = totalChanges(sqlite);
      indexed += wrote;
      if (!s.reader.alive) {
        // Failed or closed: what is left is written on this thread, in this sync if the budget allows.
        state = null;
        if (!overBudget()) writeHere();
        break;
      }
      if (overBudget()) {
        fill(s); // the reader keeps reading while the server answers between slices
        break;
      }
    }
    return finish();
  }
}

let readRows: DocumentRows | null = null;
const serving = new WeakSet<Database.Database>();

/**
 * Registers `metron_read_documents` on a connection: the documents of the batch being written (`readRows`), each text
 * as its UTF-8 bytes (a blob, which FTS5 reads as the text it encodes: the same index as from the string).
 */
function serveReadRows(sqlite: Database.Database) {
  if (serving.has(sqlite)) return;
  sqlite.table("metron_read_documents", {
    columns: ["rid", "content"],
    *rows() {
      if (!readRows) return;
      const { count, rids, ends } = readRows;
      const bytes = Buffer.from(readRows.bytes);
      let start = 0;
      for (let i = 0; i < count; i++) {
        yield [rids[i], bytes.subarray(start, ends[i])];
        start = ends[i];
      }
    },
  });
  serving.add(sqlite);
}

/** Removes traces' documents (inside the caller's transaction): each trace's range of rowids. */
async function removeFromSqliteIndex(sql: Sql, selection: TraceSelection): Promise<void> {
  const q = qb(sql);
  const bases = await many(
    sql,
    q
      .selectFrom("search_indexed")
      .select(["trace_id as id", "base"])
      .where("trace_id", "in", selectedTraceIds(sql, selection)),
  );
  for (const b of bases) {
    await write(
      sql,
      q
        .deleteFrom("search_docs")
        .where("rowid", ">=", b.base)
        .where("rowid", "<", b.base + SEARCH_SPAN),
    );
    await write(sql, q.deleteFrom("search_indexed").where("trace_id", "=", b.id));
  }
}

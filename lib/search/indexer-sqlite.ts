/**
 * The SQLite store's search indexer: FTS5 documents (`search_docs`, contentless: the index keeps no copy of the
 * text), written with prepared statements on the store's connection, one rowid range per trace (`search_indexed`),
 * never waiting for the write lock. The documents
 * are made by INSERT … SELECT with SQLite's JSON functions, written here as SQLite's own SQL (FTS5 and `json_tree`
 * are this engine's alone); the bookkeeping is compiled by Kysely from the schema.
 */
import type Database from "better-sqlite3";
import type { Sql } from "@/lib/db/sql";
import { insertText, many, qb, write } from "@/lib/db/typed";
import { selectedTraceIds, type TraceSelection } from "@/lib/db/typed-sql";
import { SEARCH_SPAN, searchLimits } from "./limits";
import type { SearchIndexer } from "./search-indexer";

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

function syncSqliteIndex(
  sqlite: Database.Database,
  opts: { budgetMs?: number } = {},
): { indexed: number; pending: number } {
  // Nothing written by anyone since this connection found the index complete: no count (every search asks).
  if (knownComplete(sqlite)) return { indexed: 0, pending: 0 };
  const { maxChars } = searchLimits();
  const started = performance.now();
  // Most searches find nothing to index: two counts say so without walking the traces. The stamp is taken before
  // them: a commit after it moves it, so the next sync counts again.
  let stamp = contentStamp(sqlite);
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
  if (missing() <= 0) {
    completeAt.set(sqlite, stamp);
    return { indexed: 0, pending: 0 };
  }
  const pending = sqlite.prepare(
    `SELECT t.rowid AS r, t.id FROM traces t WHERE t.rowid > ? AND NOT EXISTS (SELECT 1 FROM search_indexed si WHERE si.trace_id = t.id)
     ORDER BY t.rowid LIMIT 200`,
  );
  // A batch's documents in one statement, in rowid order: FTS5 writes its pending terms out as a new segment at every
  // statement of a transaction (the statement's savepoint) and whenever a rowid is not above the last, so a statement
  // per trace made a segment per trace and merging them took half the build (20 s against 13 s for 300 MB).
  // Trace k of the batch (k from 0) gets base @base + (k + 1) × SPAN: its question, final SQL and gold SQL at + 0 … 2,
  // step i at + 3 + i. Results over 200 kB are indexed as their first characters, raw (not decoded): decoding them costs
  // too much.
  const batchDocs = sqlite.prepare(
    `INSERT INTO search_docs (rowid, content)
     SELECT rid, content FROM (
       SELECT @base + (j.key + 1) * @span AS rid, substr(coalesce(t.question_text, '') || ' ' || coalesce(t.evidence, ''), 1, @max) AS content
         FROM json_each(@ids) j CROSS JOIN traces t ON t.id = j.value
       UNION ALL SELECT @base + (j.key + 1) * @span + 1, substr(t.final_sql, 1, @max)
         FROM json_each(@ids) j CROSS JOIN traces t ON t.id = j.value WHERE t.final_sql IS NOT NULL
       UNION ALL SELECT @base + (j.key + 1) * @span + 2, substr(t.gold_sql, 1, @max)
         FROM json_each(@ids) j CROSS JOIN traces t ON t.id = j.value WHERE t.gold_sql IS NOT NULL
       UNION ALL SELECT @base + (x.k + 1) * @span + 3 + x.seq,
         substr(x.tool || ' ' || ${TEXT_OF("x.args")} || ' ' || x.content || ' ' || x.error || ' ' || ${TEXT_OF("x.res")}, 1, @max)
         FROM (SELECT j.key AS k, s.seq, coalesce(s.tool, '') AS tool, s.args, coalesce(s.content, '') AS content, coalesce(s.error, '') AS error,
                 CASE WHEN s.result IS NOT NULL THEN s.result WHEN length(b.content) <= 200000 THEN b.content ELSE substr(b.content, 1, @max) END AS res
               FROM json_each(@ids) j CROSS JOIN steps s ON s.trace_id = j.value AND s.seq < @span - 3
               LEFT JOIN blobs b ON b.hash = s.result_blob) x
     ) ORDER BY rid`,
  );
  const mark = sqlite.prepare(insertText("sqlite", "search_indexed", ["trace_id", "base"]));
  const maxBase = sqlite.prepare(
    q
      .selectFrom("search_indexed")
      .select((eb) => eb.fn.coalesce(eb.fn.max("base"), eb.lit(0)).as("b"))
      .compile().sql,
  );
  let indexed = 0;
  let cursor = 0;
  // Never wait for the write lock here: better-sqlite3 waits synchronously, and a server that waited for its own
  // upload's lock would stop answering. A busy store leaves the rest to the next search or the background indexer.
  const busyBefore = sqlite.pragma("busy_timeout", { simple: true }) as number;
  sqlite.pragma("busy_timeout = 0");
  try {
    for (;;) {
      const batch = pending.all(cursor) as { r: number; id: string }[];
      if (!batch.length) break;
      try {
        sqlite
          .transaction(() => {
            const base = (maxBase.get() as { b: number }).b; // read inside the write: another process may index too
            const ids = JSON.stringify(batch.map((b) => b.id));
            batchDocs.run({ base, span: SEARCH_SPAN, max: maxChars, ids });
            batch.forEach(({ id }, k) => mark.run(id, base + (k + 1) * SEARCH_SPAN));
          })
          .immediate();
      } catch (e) {
        if ((e as { code?: string }).code === "SQLITE_BUSY") break;
        throw e;
      }
      indexed += batch.length;
      cursor = batch.at(-1)!.r;
      if (opts.budgetMs !== undefined && performance.now() - started > opts.budgetMs) break;
    }
  } finally {
    sqlite.pragma(`busy_timeout = ${busyBefore}`);
  }
  stamp = contentStamp(sqlite); // after this sync's own writes
  const left = Math.max(0, missing());
  if (left === 0) completeAt.set(sqlite, stamp);
  return { indexed, pending: left };
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

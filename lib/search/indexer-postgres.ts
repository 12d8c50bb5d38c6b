/**
 * The PostgreSQL store's search indexer: the same documents as SQLite's, in `search_docs` as a `tsvector` with a GIN
 * index and no copy of their text (drizzle-pg/0009_search_without_text.sql); `metron_text_of` gives a JSON value's words. One indexer at a time (an
 * advisory lock). The documents are made by INSERT … SELECT with PostgreSQL's own functions: Kysely's `raw`
 * templates, whose values are the engine's placeholders.
 */
import type { Sql } from "@/lib/db/sql";
import { count, many, one, qb, raw, write } from "@/lib/db/typed";
import { selectedTraceIds } from "@/lib/db/typed-sql";
import { SEARCH_SPAN, searchLimits } from "./limits";
import type { SearchIndexer } from "./search-indexer";
import { noteComplete, notedComplete, postgresStamp } from "./complete-note";

/** Traces indexed in one transaction. */
const BATCH = 200;

export function postgresIndexer(sql: Sql): SearchIndexer {
  return {
    sync: (opts = {}) => syncPostgresIndex(sql, opts),
    async remove(selection) {
      const q = qb(sql);
      await write(sql, q.deleteFrom("search_docs").where("trace_id", "in", selectedTraceIds(sql, selection)));
      await write(sql, q.deleteFrom("search_indexed").where("trace_id", "in", selectedTraceIds(sql, selection)));
    },
  };
}

/** Traces not in the index yet: two counts, so that a search with nothing to index walks no traces. */
export function missingFromIndex(sql: Sql): Promise<number> {
  return count(
    sql,
    qb(sql).selectNoFrom((eb) =>
      eb(
        eb.selectFrom("traces").select(eb.fn.countAll<number>().as("a")),
        "-",
        eb.selectFrom("search_indexed").select(eb.fn.countAll<number>().as("b")),
      ).as("n"),
    ),
  );
}

async function syncPostgresIndex(sql: Sql, opts: { budgetMs?: number }): Promise<{ indexed: number; pending: number }> {
  const { maxChars } = searchLimits();
  const started = performance.now();
  // The store's note (complete-note.ts): most searches find nothing to index, and the counts walk both tables. The
  // stamp is read before them.
  const stamp = await postgresStamp(sql);
  if (await notedComplete(sql, stamp)) return { indexed: 0, pending: 0 };
  if ((await missingFromIndex(sql)) <= 0) {
    await noteComplete(sql, stamp);
    return { indexed: 0, pending: 0 };
  }
  let indexed = 0;
  let ranOut = false;
  for (;;) {
    const n = await sql.transaction(async (tx) => {
      // One indexer at a time (a server and a worker may both try): the bases must not overlap. One that finds
      // another at work leaves it to that one instead of waiting in line (under load, every search would queue
      // behind the lock: issue 28); what is left is indexed by the next call.
      const got = await one(
        tx,
        raw<{ ok: boolean }>`SELECT pg_try_advisory_xact_lock(hashtext('metron-search-index')) AS ok`,
      );
      if (!got?.ok) return -1;
      const q = qb(tx);
      const batch = await many(
        tx,
        q
          .selectFrom("traces as t")
          .select("t.id")
          .where(({ not, exists, selectFrom }) =>
            not(exists(selectFrom("search_indexed as si").select("si.trace_id").whereRef("si.trace_id", "=", "t.id"))),
          )
          .orderBy("t.created_at")
          .orderBy("t.id")
          .limit(BATCH),
      );
      const base = Number(
        (
          await one(
            tx,
            q.selectFrom("search_indexed").select((eb) => eb.fn.coalesce(eb.fn.max("base"), eb.lit(0)).as("b")),
          )
        )?.b ?? 0,
      );
      if (!batch.length) return 0;
      // The batch in three statements, not three per trace (a round trip each): trace k of the batch (k from 1) gets
      // base + k × SPAN, as SQLite's indexer lays them out.
      const ids = JSON.stringify(batch.map((b) => b.id));
      await write(
        tx,
        raw`INSERT INTO search_docs (rowid, tsv, trace_id, seq, field)
         SELECT ${base}::bigint + j.k * ${SEARCH_SPAN}::bigint + 0, to_tsvector('simple', substr(coalesce(t.question_text, '') || ' ' || coalesce(t.evidence, ''), 1, ${maxChars})), t.id, NULL::bigint, 'question'
           FROM jsonb_array_elements_text(${ids}::jsonb) WITH ORDINALITY AS j(id, k) JOIN traces t ON t.id = j.id
         UNION ALL SELECT ${base}::bigint + j.k * ${SEARCH_SPAN}::bigint + 1, to_tsvector('simple', substr(t.final_sql, 1, ${maxChars})), t.id, NULL, 'final_sql'
           FROM jsonb_array_elements_text(${ids}::jsonb) WITH ORDINALITY AS j(id, k) JOIN traces t ON t.id = j.id WHERE t.final_sql IS NOT NULL
         UNION ALL SELECT ${base}::bigint + j.k * ${SEARCH_SPAN}::bigint + 2, to_tsvector('simple', substr(t.gold_sql, 1, ${maxChars})), t.id, NULL, 'gold_sql'
           FROM jsonb_array_elements_text(${ids}::jsonb) WITH ORDINALITY AS j(id, k) JOIN traces t ON t.id = j.id WHERE t.gold_sql IS NOT NULL`,
      );
      await write(
        tx,
        raw`INSERT INTO search_docs (rowid, tsv, trace_id, seq, field)
         SELECT ${base}::bigint + x.k * ${SEARCH_SPAN}::bigint + 3 + x.seq, to_tsvector('simple', substr(x.tool || ' ' || metron_text_of(x.args) || ' ' || x.content || ' ' || x.error || ' ' || metron_text_of(x.res), 1, ${maxChars})),
           x.trace_id, x.seq, x.type
         FROM (SELECT j.k, s.seq, coalesce(s.tool, '') AS tool, s.args, coalesce(s.content, '') AS content, coalesce(s.error, '') AS error,
                 CASE WHEN s.result IS NOT NULL THEN s.result WHEN length(b.content) <= 200000 THEN b.content ELSE substr(b.content, 1, ${maxChars}) END AS res,
                 s.trace_id, s.type
               FROM jsonb_array_elements_text(${ids}::jsonb) WITH ORDINALITY AS j(id, k)
               JOIN steps s ON s.trace_id = j.id AND s.seq < ${SEARCH_SPAN - 3}
               LEFT JOIN blobs b ON b.hash = s.result_blob) x`,
      );
      await write(
        tx,
        q
          .insertInto("search_indexed")
          .values(batch.map(({ id }, k) => ({ trace_id: id, base: base + (k + 1) * SEARCH_SPAN }))),
      );
      return batch.length;
    });
    if (n < 0) break;
    indexed += n;
    if (n < BATCH) {
      ranOut = true;
      break;
    }
    if (opts.budgetMs !== undefined && performance.now() - started > opts.budgetMs) break;
  }
  // A batch short of full found every trace of its snapshot indexed: nothing is left to count. The note's stamp was
  // read before: a trace committed since has moved it.
  if (ranOut) {
    await noteComplete(sql, stamp);
    return { indexed, pending: 0 };
  }
  return { indexed, pending: Math.max(0, await missingFromIndex(sql)) };
}

/**
 * The PostgreSQL store's search indexer: the same documents as SQLite's, in `search_docs` with a `tsvector` and a GIN
 * index (drizzle-pg/0001_search.sql); `metron_text_of` gives a JSON value's words. One indexer at a time (an
 * advisory lock).
 */
import type { Param, Sql } from "@/lib/db/sql";
import { SEARCH_SPAN, searchLimits } from "./limits";
import type { SearchIndexer } from "./search-indexer";

export function postgresIndexer(sql: Sql): SearchIndexer {
  return {
    sync: (opts = {}) => syncPostgresIndex(sql, opts),
    async remove(where: string, params: Param[]) {
      await sql.run(`DELETE FROM search_docs WHERE trace_id IN (SELECT id FROM traces WHERE ${where})`, params);
      await sql.run(`DELETE FROM search_indexed WHERE trace_id IN (SELECT id FROM traces WHERE ${where})`, params);
    },
  };
}

async function syncPostgresIndex(sql: Sql, opts: { budgetMs?: number }): Promise<{ indexed: number; pending: number }> {
  const { maxChars } = searchLimits();
  const started = performance.now();
  const missing = async () =>
    (await sql.get<{ n: number }>("SELECT (SELECT count(*) FROM traces) - (SELECT count(*) FROM search_indexed) AS n"))!
      .n;
  if ((await missing()) <= 0) return { indexed: 0, pending: 0 };
  let indexed = 0;
  for (;;) {
    const n = await sql.transaction(async (tx) => {
      // One indexer at a time (a server and a worker may both try): the bases must not overlap. One that finds
      // another at work leaves it to that one instead of waiting in line (under load, every search would queue
      // behind the lock: issue 28); what is left is indexed by the next call.
      const got = await tx.get<{ ok: boolean }>(
        "SELECT pg_try_advisory_xact_lock(hashtext('metron-search-index')) AS ok",
      );
      if (!got?.ok) return -1;
      const batch = await tx.all<{ id: string }>(
        `SELECT t.id FROM traces t WHERE NOT EXISTS (SELECT 1 FROM search_indexed si WHERE si.trace_id = t.id)
         ORDER BY t.created_at, t.id LIMIT 200`,
      );
      let base = (await tx.get<{ b: number }>("SELECT coalesce(max(base), 0) AS b FROM search_indexed"))!.b;
      for (const { id } of batch) {
        base += SEARCH_SPAN;
        await tx.run(
          `INSERT INTO search_docs (rowid, content, trace_id, seq, field)
           SELECT ?::bigint + 0, substr(coalesce(question_text, '') || ' ' || coalesce(evidence, ''), 1, ?), id, NULL::bigint, 'question' FROM traces WHERE id = ?
           UNION ALL SELECT ?::bigint + 1, substr(final_sql, 1, ?), id, NULL, 'final_sql' FROM traces WHERE id = ? AND final_sql IS NOT NULL
           UNION ALL SELECT ?::bigint + 2, substr(gold_sql, 1, ?), id, NULL, 'gold_sql' FROM traces WHERE id = ? AND gold_sql IS NOT NULL`,
          [base, maxChars, id, base, maxChars, id, base, maxChars, id],
        );
        await tx.run(
          `INSERT INTO search_docs (rowid, content, trace_id, seq, field)
           SELECT ?::bigint + 3 + x.seq, substr(x.tool || ' ' || metron_text_of(x.args) || ' ' || x.content || ' ' || x.error || ' ' || metron_text_of(x.res), 1, ?),
             x.trace_id, x.seq, x.type
           FROM (SELECT s.seq, coalesce(s.tool, '') AS tool, s.args, coalesce(s.content, '') AS content, coalesce(s.error, '') AS error,
                   CASE WHEN s.result IS NOT NULL THEN s.result WHEN length(b.content) <= 200000 THEN b.content ELSE substr(b.content, 1, ?) END AS res,
                   s.trace_id, s.type
                 FROM steps s LEFT JOIN blobs b ON b.hash = s.result_blob WHERE s.trace_id = ? AND s.seq < ?) x`,
          [base, maxChars, maxChars, id, SEARCH_SPAN - 3],
        );
        await tx.run("INSERT INTO search_indexed (trace_id, base) VALUES (?, ?)", [id, base]);
      }
      return batch.length;
    });
    if (n <= 0) break;
    indexed += n;
    if (opts.budgetMs !== undefined && performance.now() - started > opts.budgetMs) break;
  }
  return { indexed, pending: Math.max(0, await missing()) };
}

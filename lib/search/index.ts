/**
 * Full-text search over stored traces with SQLite's FTS5: one document for the question (text and evidence), one
 * for the final SQL, one for the gold SQL, and one per step (tool, arguments, message or reasoning, error and result,
 * each document capped at METRON_SEARCH_MAX_CHARS). The index follows the store: traces not yet indexed are indexed
 * before every search (an upload does not pay for it), and a deleted trace's documents go with it (one rowid range
 * per trace, recorded in `search_indexed`). Structured terms (lib/search/query.ts) filter by the rows themselves:
 * `table:` by the tables a step touched, `outcome:` by effective correctness, `label:` by labels.
 *
 * On PostgreSQL the same documents live in a table with a `tsvector` and a GIN index (drizzle-pg/0001_search.sql),
 * matched with `phraseto_tsquery('simple', …)` per word or phrase and highlighted with `ts_headline`. Its `simple`
 * configuration splits words as PostgreSQL's parser does and keeps accents (FTS5 here removes them): `résumé` does
 * not find `resume` there.
 */
import type { SqlBool } from "kysely";
import type { Sql } from "@/lib/db/sql";
import { positiveNumber } from "@/lib/config/env";
import { many, qb, raw } from "@/lib/db/typed";
import { effectiveCorrect, inJsonArray, jsonValue, type TraceSelection } from "@/lib/db/typed-sql";
import { labelList, stepConditions, traceConditions } from "./conditions";
import { documentTexts } from "./documents";
import { makeSnippet } from "./snippets";
import { SEARCH_SPAN } from "./limits";
import { summarizeArgs } from "@/lib/trace/step-summary";
import { parseQuery, type ParsedQuery } from "./query";
import { MARK_END, MARK_START } from "./marks";
import { searchIndexer } from "./indexer";
import { markRemoval } from "./complete-note";
import type { SyncOptions } from "./search-indexer";
import { searchLimits } from "./limits";

export { MARK_END, MARK_START };
export { SEARCH_SPAN, searchLimits } from "./limits";

/**
 * Indexes the traces not in the index yet, oldest first, in transactions of 200; stops after `budgetMs` (the rest
 * waits for the next call). Returns how many it indexed and how many are left.
 */
export function syncSearchIndex(sql: Sql, opts: SyncOptions = {}): Promise<{ indexed: number; pending: number }> {
  return searchIndexer(sql).sync(opts);
}

/** Removes traces' documents (inside the caller's transaction), on either engine. */
export async function removeTracesFromSearch(tx: Sql, selection: TraceSelection): Promise<void> {
  await searchIndexer(tx).remove(selection);
  await markRemoval(tx); // the store's note that every trace is indexed no longer holds (complete-note.ts)
}

export interface SearchSnippet {
  /** The step's seq; null for the question, final SQL or gold SQL. */
  seq: number | null;
  field: string;
  /** Text with MARK_START / MARK_END around matches. */
  text: string;
}

export interface TraceHit {
  traceId: string;
  runId: string;
  runName: string;
  system: string;
  model: string;
  simulated: boolean;
  questionId: string;
  sample: number;
  questionText: string | null;
  exOutcome: string | null;
  recordedCorrect: number | null;
  status: string;
  /** Effective correctness: EX when judged, else the recorded outcome; null when unknown. */
  correct: number | null;
  labels: string[];
  snippets: SearchSnippet[];
}

export interface SearchResult {
  query: ParsedQuery;
  /** Traces that match; `capped` when only the best METRON_SEARCH_MAX_DOCS documents were grouped. */
  total: number;
  capped: boolean;
  hits: TraceHit[];
  /** Traces indexed by this search before it ran (the index catches up with uploads). */
  newlyIndexed: number;
  /** Traces still to index (left out of this search) when the search's indexing budget ran out. */
  notIndexed: number;
}

/** Extra filters from a page's controls, added to the query's own terms. */
export type SearchFilters = Partial<
  Record<"dataset" | "run" | "system" | "model" | "outcome" | "tool" | "role" | "label", string>
>;

interface DocRow {
  rowid: number | null;
  traceId: string;
  seq: number | null;
  field: string;
  /** The snippet's text when it comes from the step row (no words searched); else made for shown hits only. */
  text?: string;
}

/** An FTS5 phrase for a structured term's value (a prefilter: the value appears in the step's text). */
const phrase = (v: string) => `"${v.replace(/"/g, '""')}"`;

/**
 * Searches the store; see lib/search/query.ts for the language. Hits are grouped by trace, newest first (FTS5
 * walks its index from the newest document, so a common word is as quick as a rare one). `tool:` and `table:` use
 * the index to find candidate steps (the name appears in the step's text) and the step's own columns to decide.
 */
export async function searchTraces(
  sql: Sql,
  q: string,
  opts: {
    filters?: SearchFilters;
    limit?: number;
    offset?: number;
    indexBudgetMs?: number;
    /** Index what is missing with its documents read in a worker thread when much is (the CLI's first search). */
    readAhead?: boolean;
  } = {},
): Promise<SearchResult> {
  const pg = sql.dialect === "postgres";
  const sync = await syncSearchIndex(sql, { budgetMs: opts.indexBudgetMs, readAhead: opts.readAhead });
  const query = parseQuery(q);
  const extra = Object.entries(opts.filters ?? {})
    .filter(([, v]) => v)
    .map(([key, value]) => ({ key, value: key === "outcome" ? value!.toLowerCase() : value! })) as ParsedQuery["terms"];
  const terms = [...query.terms, ...extra];
  const limit = opts.limit ?? 50;
  const offset = opts.offset ?? 0;
  const { maxDocs } = searchLimits();
  const traceTerms = terms.filter((t) => t.key !== "tool" && t.key !== "role" && t.key !== "table");
  const stepTerms = terms.filter((t) => t.key === "tool" || t.key === "role" || t.key === "table");
  const prefilter = stepTerms.filter((t) => t.key !== "role").map((t) => t.value);
  const match = [query.match, ...prefilter.map(phrase)].filter(Boolean).join(" AND ") || null;
  // PostgreSQL: the same words, phrases and exclusions as a tsquery (each a phrase of its own).
  const excluded = query.match
    ? [...query.match.matchAll(/NOT "((?:[^"]|"")*)"/g)].map((m) => m[1].replaceAll('""', '"'))
    : [];
  // What a match holds (marked in the snippets): the words and phrases, and the names the step terms look for.
  const positive = [...query.words.filter((w) => !excluded.includes(w)), ...prefilter];
  const tsquery = raw.join(
    [
      ...positive.map((w) => raw`phraseto_tsquery('simple', ${w})`),
      ...excluded.map((w) => raw`!! phraseto_tsquery('simple', ${w})`),
    ],
    raw` && `,
  );
  const matches = pg ? raw<SqlBool>`d.tsv @@ (${tsquery})` : raw<SqlBool>`search_docs MATCH ${match}`;
  const db = qb(sql);
  // Newest traces first: PostgreSQL has no rowid, so by creation time (then id).
  const newest = pg ? raw`t.created_at DESC, t.id DESC` : raw`t.rowid DESC`;
  let docs: DocRow[];
  if (match) {
    // A document's rowid names its trace (the multiple of SEARCH_SPAN below it is the trace's base) and its part
    // (0 the question, 1 the final SQL, 2 the gold SQL, 3 + seq a step): the index keeps nothing else.
    const span = raw.lit(SEARCH_SPAN);
    const offset = raw<number>`(d.rowid % ${span})`;
    docs = await many(
      sql,
      db
        .selectFrom("search_docs as d")
        .innerJoin("search_indexed as si", (j) => j.on(raw<SqlBool>`si.base = d.rowid - ${offset}`))
        .select([
          "d.rowid as rowid",
          "si.trace_id as traceId",
          raw<number | null>`CASE WHEN ${offset} >= 3 THEN ${offset} - 3 END`.as("seq"),
          raw<string>`CASE ${offset} WHEN 0 THEN 'question' WHEN 1 THEN 'final_sql' WHEN 2 THEN 'gold_sql' ELSE 'step' END`.as(
            "field",
          ),
        ])
        .where((eb) =>
          eb.and([
            matches,
            ...(traceTerms.length
              ? [
                  eb(
                    "si.trace_id",
                    "in",
                    eb
                      .selectFrom("traces as t")
                      .innerJoin("runs as r", "r.id", "t.run_id")
                      .select("t.id")
                      .where((tb) => tb.and(traceConditions(tb, traceTerms))),
                  ),
                ]
              : []),
            ...(stepTerms.length
              ? [
                  eb.exists(
                    eb
                      .selectFrom("steps as s")
                      .select("s.seq")
                      .whereRef("s.trace_id", "=", "si.trace_id")
                      .where((sb) => sb("s.seq", "=", raw<number>`${offset} - 3`))
                      .where((sb) => sb.and(stepConditions(sql, sb, stepTerms))),
                  ),
                ]
              : []),
          ]),
        )
        .orderBy("d.rowid", "desc")
        .limit(maxDocs),
    );
  } else if (stepTerms.length) {
    docs = (
      await many(
        sql,
        db
          .selectFrom("steps as s")
          .innerJoin("traces as t", "t.id", "s.trace_id")
          .innerJoin("runs as r", "r.id", "t.run_id")
          .select(["s.trace_id as traceId", "s.seq as seq", "s.type as field", "s.tool as tool", "s.args as args"])
          .where((eb) => eb.and([...stepConditions(sql, eb, stepTerms), ...traceConditions(eb, traceTerms)]))
          .orderBy(newest)
          .orderBy("s.seq")
          .limit(maxDocs),
      )
    ).map((d) => ({ ...d, rowid: null, text: `${d.tool ?? d.field} ${summarizeArgs(d.args)}` }));
  } else if (terms.length) {
    docs = (
      await many(
        sql,
        db
          .selectFrom("traces as t")
          .innerJoin("runs as r", "r.id", "t.run_id")
          .select("t.id as traceId")
          .where((eb) => eb.and(traceConditions(eb, traceTerms)))
          .orderBy(newest)
          .limit(maxDocs),
      )
    ).map((d) => ({ ...d, rowid: null, seq: null, field: "trace", text: "" }));
  } else docs = [];

  const order: string[] = [];
  const byTrace = new Map<string, DocRow[]>();
  for (const d of docs) {
    let list = byTrace.get(d.traceId);
    if (!list) {
      byTrace.set(d.traceId, (list = []));
      order.push(d.traceId);
    }
    if (list.length < 3) list.push(d);
  }
  const page = order.slice(offset, offset + limit);
  // Snippets only for the hits shown, in step order; the hits' rows and their snippets in one query each (under load
  // every round trip waits for a pooled connection: a page of 25 hits once made ~100 of them).
  const shown = page.flatMap((id) => byTrace.get(id)!);
  const wanted = match ? shown.filter((d) => d.text === undefined && d.rowid !== null) : [];
  const snippetText = new Map<number, string>();
  if (wanted.length) {
    // The index keeps no text: each shown document's is read again, as the indexer made it, and its matches marked.
    for (const d of await documentTexts(sql, wanted)) {
      snippetText.set(Number(d.rowid), makeSnippet(d.text, positive));
      if (d.type) d.doc.field = d.type;
    }
  }
  const rows = page.length
    ? await many(
        sql,
        db
          .selectFrom("traces as t")
          .innerJoin("runs as r", "r.id", "t.run_id")
          .select((eb) => [
            "t.id as traceId",
            "r.id as runId",
            "r.name as runName",
            "r.system",
            "r.model",
            eb.fn.coalesce(jsonValue(sql, eb, "r.config", "simulated"), eb.lit(0)).as("simulated"),
            "t.question_id as questionId",
            "t.sample",
            eb.fn<string | null>("substr", ["t.question_text", eb.lit(1), eb.lit(300)]).as("questionText"),
            "t.ex_outcome as exOutcome",
            "t.recorded_correct as recordedCorrect",
            "t.status",
            effectiveCorrect(eb, "t.ex_outcome", "t.recorded_correct").as("correct"),
            labelList(sql, eb).as("labels"),
          ])
          .where((eb) => inJsonArray(sql, eb, "t.id", page)),
      )
    : [];
  const rowOf = new Map(rows.map((r) => [r.traceId, r]));
  const hits: TraceHit[] = [];
  for (const id of page) {
    const row = rowOf.get(id);
    if (!row) continue; // deleted between the match and now
    const snippets: SearchSnippet[] = [];
    for (const d of byTrace.get(id)!.sort((a, b) => (a.seq ?? -1) - (b.seq ?? -1))) {
      const text = d.text ?? (d.rowid !== null ? (snippetText.get(Number(d.rowid)) ?? "") : "");
      if (text) snippets.push({ seq: d.seq, field: d.field, text });
    }
    hits.push({
      ...row,
      simulated: Boolean(Number(row.simulated)),
      labels: row.labels ? row.labels.split("\u0001") : [],
      snippets,
    });
  }
  return {
    query,
    total: order.length,
    capped: docs.length >= maxDocs,
    hits,
    newlyIndexed: sync.indexed,
    notIndexed: sync.pending,
  };
}

/** The traces of a run that match a search (for the run page's question table and its CSV). */
export async function searchRunTraceIds(sql: Sql, runId: string, q: string): Promise<string[]> {
  return (await searchTraces(sql, `${q} run:${runId}`, { limit: Number.MAX_SAFE_INTEGER })).hits.map((h) => h.traceId);
}

interface Background {
  running?: boolean;
}
const bg = globalThis as unknown as { metronSearchIndexing?: Background };

/**
 * Indexes what is left in the background of a long-running server, a batch at a time between requests, so the first
 * search after a large upload does not wait for all of it.
 */
export function indexInBackground(openStore: () => Sql | Promise<Sql>): void {
  const state = (bg.metronSearchIndexing ??= {});
  if (state.running) return;
  state.running = true;
  const store = Promise.resolve(openStore());
  const done = async () => {
    await (await store).close();
    state.running = false;
  };
  const step = async () => {
    try {
      // Short slices with pauses between them: the server keeps answering pages while a big store is indexed (a
      // request waits at most one slice).
      const { indexed, pending } = await syncSearchIndex(await store, {
        budgetMs: positiveNumber("METRON_INDEX_SLICE_MS", 30),
        readAhead: true,
      });
      if (pending > 0) {
        // A busy store (an upload writing) indexes nothing: look again a little later.
        setTimeout(() => void step(), indexed ? 15 : 500).unref();
        return;
      }
    } catch (e) {
      console.error(`metron search index: ${(e as Error).message}`);
    }
    await done();
  };
  setTimeout(() => void step(), 0).unref();
}

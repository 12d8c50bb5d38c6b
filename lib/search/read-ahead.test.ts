/**
 * The search index built with its documents read ahead in a worker thread (lib/search/document-reader.ts) against the
 * same store indexed on one thread, on real Spider-de questions, gold SQL and schemas (German, with umlauts).
 */
import { readFileSync } from "node:fs";
import os from "node:os";
import { mkdtempSync, rmSync } from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { openConnection } from "@/lib/db/client";
import { beginImmediate } from "@/lib/db/write-lock";
import { asSql } from "@/lib/db/sql";
import { ingestStream } from "@/lib/ingest/ingest";
import { ingestFile } from "@/lib/ingest/ingest-file";
import { deleteRun } from "@/lib/ingest/remove";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { jsonl, makeStep } from "@/lib/testing/factories";
import { sharedData } from "@/lib/testing/shared-data";
import { DocumentReader } from "./document-reader";
import { searchTraces, syncSearchIndex } from "./index";
import { SEARCH_SPAN } from "./limits";

interface SpiderQuestion {
  db_id: string;
  question: string;
  query: string;
}

const lines: object[] = [];
const stores: ReturnType<typeof tempDb>[] = [];
const RUN_A = "spider read-ahead a";
const RUN_B = "spider read-ahead b";
const RUN_C = "spider read-ahead c";

beforeAll(() => {
  const questions = JSON.parse(readFileSync(sharedData("spider-de", "dev.json"), "utf8")) as SpiderQuestion[];
  const schemas = new Map<string, { name: string; sql: string }[]>();
  for (const q of questions) {
    if (schemas.has(q.db_id)) continue;
    const db = new Database(sharedData("spider-de", "database", q.db_id, `${q.db_id}.sqlite`), { readonly: true });
    schemas.set(
      q.db_id,
      db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND sql IS NOT NULL").all() as {
        name: string;
        sql: string;
      }[],
    );
    db.close();
  }
  // 200 traces in the first run (the indexer's first batch), 400 in the second (its next two), the rest of the
  // questions in a third: each lists the database's tables, describes each with its real CREATE TABLE, reads the gold
  // SQL and submits it.
  for (const [i, q] of questions.entries()) {
    const tables = schemas.get(q.db_id)!;
    lines.push({
      run: {
        name: i < 200 ? RUN_A : i < 600 ? RUN_B : RUN_C,
        system: "No Directives",
        model: "m",
        benchmark: "spider-de",
      },
      question: { id: String(i), db_id: q.db_id, text: q.question, gold_sql: q.query },
      steps: [
        makeStep({ tool: "list_tables", args: {}, result: tables.map((t) => t.name).join("\n") }),
        ...tables.map((t) => makeStep({ tool: "describe_table", args: { table_name: t.name }, result: t.sql })),
        makeStep({ tool: "read_query", args: { query: q.query } }),
        makeStep({ tool: "submit_final_query", args: { query: q.query } }),
      ],
    });
  }
  expect(lines.length).toBeGreaterThan(800); // more than four batches of 200
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});
afterAll(() => stores.forEach((s) => s.cleanup()));

/** Real agents' files (LiveSQLBench ADK, Spider-Agent, a Claude Code session), read by their adapters. */
const REAL_FILES = [
  ["livesqlbench-adk", "single_turn_samples.json"],
  ["spider-agent", "spider-agent-tc_claude-3-7-sonnet_sf_bq024.json"],
  ["claude-code", "session_b.jsonl"],
];

async function storeWithLines({ realFiles = false } = {}) {
  const store = tempDb();
  stores.push(store);
  await ingestStream(store.sql, chunksOf(jsonl(...lines), 1 << 20));
  if (realFiles)
    for (const [dir, file] of REAL_FILES) {
      const report = await ingestFile(store.sql, sharedData("traces", dir, file));
      expect(report.inserted).toBeGreaterThan(0);
    }
  return store;
}

/** Every token of the index: its term, document, column and offset (fts5vocab's instance table). */
function instances(sqlite: Database.Database) {
  sqlite.exec("CREATE VIRTUAL TABLE IF NOT EXISTS temp.vocab USING fts5vocab(main, search_docs, instance)");
  return sqlite.prepare("SELECT term, doc, offset FROM temp.vocab ORDER BY term, doc, offset").raw().all();
}

const marks = (sqlite: Database.Database) =>
  sqlite.prepare("SELECT trace_id, base FROM search_indexed ORDER BY base").raw().all();

async function indexAll(sql: ReturnType<typeof tempDb>["sql"], readAhead: boolean) {
  let n = 0;
  for (;;) {
    const r = await syncSearchIndex(sql, { readAhead });
    n += r.indexed;
    if (r.pending === 0) return n;
  }
}

/** The documents the store's rows make: a question each, a final and a gold SQL where set, a step each. */
function expectedDocuments(sqlite: Database.Database): number {
  return (
    sqlite
      .prepare(
        `SELECT (SELECT count(*) + count(final_sql) + count(gold_sql) FROM traces)
              + (SELECT count(*) FROM steps WHERE seq < ?) AS n`,
      )
      .get(SEARCH_SPAN - 3) as { n: number }
  ).n;
}

const documents = (sqlite: Database.Database) =>
  (sqlite.prepare("SELECT count(*) AS n FROM search_docs").get() as { n: number }).n;
const orphanMarks = (sqlite: Database.Database) =>
  (
    sqlite
      .prepare(
        "SELECT count(*) AS n FROM search_indexed si WHERE NOT EXISTS (SELECT 1 FROM traces t WHERE t.id = si.trace_id)",
      )
      .get() as { n: number }
  ).n;

describe("the search index with its documents read ahead in a worker thread", () => {
  it("is the same index, token for token, as the one built on one thread", async () => {
    const one = await storeWithLines({ realFiles: true });
    const two = await storeWithLines({ realFiles: true });
    const traces = (one.db.$client.prepare("SELECT count(*) AS n FROM traces").get() as { n: number }).n;
    expect(traces).toBeGreaterThan(lines.length);
    const read = vi.spyOn(DocumentReader.prototype, "read");
    expect(await indexAll(one.sql, false)).toBe(traces);
    expect(read).not.toHaveBeenCalled(); // the background indexer's option, not a search's

    vi.stubEnv("METRON_SEARCH_READER_TRACES", "1");
    expect(await indexAll(two.sql, true)).toBe(traces);
    expect(read.mock.calls.length).toBeGreaterThanOrEqual(Math.ceil(traces / 200));

    const a = instances(one.db.$client);
    expect(a.length).toBeGreaterThan(100_000);
    expect(instances(two.db.$client)).toEqual(a);
    expect(marks(two.db.$client)).toEqual(marks(one.db.$client));
    expect(documents(two.db.$client)).toBe(expectedDocuments(two.db.$client));
    // Words of the real agents' files (a LiveSQLBench tool, a Spider-Agent action), found alike.
    for (const word of ["execute_sql", "Snowflake"]) {
      const hits = await searchTraces(one.sql, word, { limit: 10_000 });
      expect(hits.total, word).toBeGreaterThan(0);
      expect((await searchTraces(two.sql, word, { limit: 10_000 })).hits.map((h) => h.traceId)).toEqual(
        hits.hits.map((h) => h.traceId),
      );
    }
    // A word with an umlaut, folded as the tokenizer folds it, from text that crossed the threads as UTF-8.
    const word = "Sänger";
    const r1 = await searchTraces(one.sql, word, { limit: 10_000 });
    expect(r1.total).toBeGreaterThan(0);
    expect((await searchTraces(two.sql, word, { limit: 10_000 })).hits.map((h) => h.traceId)).toEqual(
      r1.hits.map((h) => h.traceId),
    );
  }, 120_000);

  it("below METRON_SEARCH_READER_TRACES waiting traces, or with 0, indexes on one thread", async () => {
    const store = await storeWithLines();
    const read = vi.spyOn(DocumentReader.prototype, "read");
    vi.stubEnv("METRON_SEARCH_READER_TRACES", String(lines.length + 1));
    expect(await syncSearchIndex(store.sql, { readAhead: true, budgetMs: 0 })).toMatchObject({ indexed: 200 });
    vi.stubEnv("METRON_SEARCH_READER_TRACES", "0");
    expect(await indexAll(store.sql, true)).toBe(lines.length - 200);
    expect(read).not.toHaveBeenCalled();
  }, 120_000);

  for (const via of ["another connection (a CLI, an upload)", "the indexing connection itself"]) {
    it(`writes nothing it read ahead for traces deleted since, through ${via}`, async () => {
      const store = await storeWithLines();
      const sqlite = store.db.$client;
      vi.stubEnv("METRON_SEARCH_READER_TRACES", "1");
      const read = vi.spyOn(DocumentReader.prototype, "read");
      // One slice, as the server's background indexer takes: the first batch (run A) written, three more read ahead.
      expect(await syncSearchIndex(store.sql, { readAhead: true, budgetMs: 0 })).toEqual({
        indexed: 200,
        pending: lines.length - 200,
      });
      expect(read).toHaveBeenCalledTimes(4);
      const runB = (sqlite.prepare("SELECT id FROM runs WHERE name = ?").get(RUN_B) as { id: string }).id;
      const other = via.startsWith("another") ? openConnection(store.file) : null;
      try {
        await deleteRun(asSql(other ?? sqlite), runB);
      } finally {
        other?.close();
      }
      // Run B's two batches were read ahead; run C's first batch too, and it is still to index.
      expect(await indexAll(store.sql, true)).toBe(lines.length - 600);
      expect(orphanMarks(sqlite)).toBe(0);
      expect(documents(sqlite)).toBe(expectedDocuments(sqlite));
      expect((await searchTraces(store.sql, `describe_table run:"${RUN_B}"`)).total).toBe(0);
      expect((await searchTraces(store.sql, `describe_table run:"${RUN_C}"`, { limit: 10_000 })).total).toBe(
        lines.length - 600,
      );

      // Ingested again, the run is indexed whole, through the reader.
      await ingestStream(store.sql, chunksOf(jsonl(...lines.slice(200, 600)), 1 << 20));
      expect(await indexAll(store.sql, true)).toBe(400);
      expect(orphanMarks(sqlite)).toBe(0);
      expect(documents(sqlite)).toBe(expectedDocuments(sqlite));
      expect((await searchTraces(store.sql, `describe_table run:"${RUN_B}"`, { limit: 10_000 })).total).toBe(400);
    }, 120_000);
  }

  it("a batch whose text passes METRON_SEARCH_READER_BATCH_MB is read on the writing thread: the same index", async () => {
    const one = await storeWithLines();
    const two = await storeWithLines();
    expect(await indexAll(one.sql, false)).toBe(lines.length);
    vi.stubEnv("METRON_SEARCH_READER_TRACES", "1");
    vi.stubEnv("METRON_SEARCH_READER_BATCH_MB", "0.2");
    const read = vi.spyOn(DocumentReader.prototype, "read");
    expect(await indexAll(two.sql, true)).toBe(lines.length);
    const answers = await Promise.all(read.mock.results.map((r) => r.value as Promise<unknown>));
    expect(answers.filter((a) => a === null).length).toBeGreaterThan(0); // over the bound: left to the writer
    expect(answers.filter((a) => a !== null).length).toBeGreaterThan(0); // under it (the last 30 traces): in the worker
    expect(instances(two.db.$client)).toEqual(instances(one.db.$client));
  }, 120_000);

  it("never waits for a lock another connection holds: the batch read ahead is kept and written once the lock is free", async () => {
    const store = await storeWithLines();
    vi.stubEnv("METRON_SEARCH_READER_TRACES", "1");
    const upload = openConnection(store.file);
    await beginImmediate(upload); // held, as an upload holds it across its chunks
    try {
      expect(await syncSearchIndex(store.sql, { readAhead: true })).toEqual({ indexed: 0, pending: lines.length });
    } finally {
      upload.exec("ROLLBACK");
      upload.close();
    }
    expect(await indexAll(store.sql, true)).toBe(lines.length);
    expect(documents(store.db.$client)).toBe(expectedDocuments(store.db.$client));
    expect(orphanMarks(store.db.$client)).toBe(0);
  }, 120_000);

  it("a reader that cannot start leaves the index to one thread, and says so once", async () => {
    const store = await storeWithLines();
    vi.stubEnv("METRON_SEARCH_READER_TRACES", "1");
    const nowhere = mkdtempSync(path.join(os.tmpdir(), "metron-no-modules-"));
    vi.stubEnv("METRON_ROOT", nowhere); // no better-sqlite3 to load from there
    const said = vi.spyOn(console, "error").mockImplementation(() => {});
    try {
      expect(await indexAll(store.sql, true)).toBe(lines.length);
    } finally {
      rmSync(nowhere, { recursive: true, force: true });
    }
    expect(said).toHaveBeenCalledTimes(1);
    expect(String(said.mock.calls[0][0])).toMatch(/indexing on one thread from now on/);
    expect(documents(store.db.$client)).toBe(expectedDocuments(store.db.$client));
  }, 120_000);
});

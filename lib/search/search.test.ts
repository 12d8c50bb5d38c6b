import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { asSql, type Sql } from "@/lib/db/sql";
import { exportStore, importStore } from "@/lib/db/transfer";
import { setLabel } from "@/lib/labels/labels";
import { tempPostgres, testPostgresUrl } from "@/lib/testing/postgres";
import { evaluateRun } from "@/lib/eval/evaluate-run";
import { deleteRun } from "@/lib/ingest/remove";
import { ingestStream } from "@/lib/ingest/ingest";
import { ingestFile } from "@/lib/ingest/ingest-file";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { jsonl, makeStep } from "@/lib/testing/factories";
import { foldersBefore } from "@/lib/testing/migrations";
import { sharedData } from "@/lib/testing/shared-data";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { MARK_END, MARK_START, searchTraces, syncSearchIndex } from "./index";
import { knownComplete } from "./indexer-sqlite";
import { parseQuery } from "./query";
import { openConnection } from "@/lib/db/client";
import { beginImmediate } from "@/lib/db/write-lock";
import { one, raw, write } from "@/lib/db/typed";

const store = tempDb();
const sqlite = store.db.$client;
let spiderRun = "";
const spiderLines: object[] = [];

beforeAll(async () => {
  await importSpiderDe(store);
  // Real Spider-de questions, each explored through the tables its gold SQL reads plus one more, answered with the
  // gold SQL for even questions and a wrong query for odd ones.
  const qs = sqlite
    .prepare(
      "SELECT question_id AS id, db_id AS db, gold_sql AS gold, gold_tables AS tables FROM questions WHERE dataset_id = 'spider-de' AND gold_tables IS NOT NULL ORDER BY rowid LIMIT 60",
    )
    .all() as { id: string; db: string; gold: string; tables: string }[];
  for (const [i, q] of qs.entries()) {
    const gold = JSON.parse(q.tables) as string[];
    spiderLines.push({
      run: { name: "spider search", system: "No Directives", model: "m", benchmark: "spider-de" },
      question: { id: q.id },
      steps: [
        makeStep({ tool: "list_tables", args: {}, result: "…" }),
        ...gold.map((t) =>
          makeStep({ tool: "describe_table", args: { table_name: t }, result: `CREATE TABLE ${t} (…)` }),
        ),
        makeStep({ tool: "read_query", args: { query: `SELECT * FROM ${gold[0]} LIMIT 3` } }),
        makeStep({ tool: "submit_final_query", args: { query: i % 2 ? "SELECT 1" : q.gold } }),
      ],
    });
  }
  spiderRun = (await ingestStream(asSql(sqlite), chunksOf(jsonl(...spiderLines), 1 << 16))).runs[0].id;
  await evaluateRun(asSql(sqlite), spiderRun);
  // A real LiveSQLBench agent sample, in its own format.
  await ingestFile(asSql(sqlite), sharedData("traces", "livesqlbench-adk", "single_turn_samples.json"));
}, 120_000);
afterAll(() => store.cleanup());

/** Traces whose steps touched a table, counted from the rows. */
const touching = (table: string) =>
  (
    sqlite
      .prepare(
        "SELECT DISTINCT s.trace_id AS id FROM steps s, json_each(s.tables) j WHERE lower(j.value) = lower(?) ORDER BY 1",
      )
      .all(table) as { id: string }[]
  ).map((r) => r.id);

describe("full-text search", () => {
  it("parses words, phrases, exclusions and structured terms, and says what it did not understand", async () => {
    const p = parseQuery('tool:describe_table table:frpm outcome:wrong "free meal" rate -charter colour:red');
    expect(p.terms).toEqual([
      { key: "tool", value: "describe_table" },
      { key: "table", value: "frpm" },
      { key: "outcome", value: "wrong" },
    ]);
    expect(p.match).toBe('"free meal" AND "rate" NOT "charter"');
    expect(p.unknown).toEqual([expect.stringContaining("colour:")]);
    expect(parseQuery('say "hi" AND NEAR(x)').match).toBe('"say" AND "hi" AND "AND" AND "NEAR(x)"'); // never FTS syntax
    // A term without its value (a space after the colon) is said back, not searched as the word "tool".
    const spaced = parseQuery("tool: describe_table");
    expect(spaced.unknown).toEqual(["tool: needs its value right after the colon, without a space (tool:VALUE)"]);
    expect(spaced.match).toBe('"describe_table"');
    expect(parseQuery("label:").match).toBeNull();
    expect(parseQuery("note: hello").match).toBe('"note:" AND "hello"'); // not a term: a word as any other
  });

  it("table:T finds exactly the traces whose steps touched T, as counted from the rows", async () => {
    const counts = sqlite
      .prepare(
        "SELECT lower(j.value) AS t, count(DISTINCT s.trace_id) AS n FROM steps s, json_each(s.tables) j GROUP BY 1 ORDER BY n DESC LIMIT 5",
      )
      .all() as { t: string; n: number }[];
    expect(counts.length).toBeGreaterThan(2);
    for (const { t, n } of counts) {
      const r = await searchTraces(asSql(sqlite), `table:${t}`, { limit: 1000 });
      expect(r.total).toBe(n);
      expect(r.hits.map((h) => h.traceId).sort()).toEqual(touching(t));
    }
  });

  it("a word finds every trace whose content has it as a token, with highlighted snippets and the step", async () => {
    const word = "execute_sql"; // a LiveSQLBench tool, an identifier with an underscore
    const expected = (
      sqlite
        .prepare(
          "SELECT DISTINCT trace_id AS id FROM steps WHERE coalesce(tool, '') || ' ' || coalesce(args, '') || ' ' || coalesce(content, '') || ' ' || coalesce(result, '') LIKE ?",
        )
        .all(`%${word}%`) as { id: string }[]
    ).map((r) => r.id);
    expect(expected.length).toBeGreaterThan(0);
    const r = await searchTraces(asSql(sqlite), word, { limit: 1000 });
    expect(r.hits.map((h) => h.traceId).sort()).toEqual(expected.sort());
    const snippet = r.hits[0].snippets[0];
    expect(snippet.seq).not.toBeNull();
    expect(snippet.text).toContain(`${MARK_START}${word}${MARK_END}`);
    expect(snippet.field).toBe("tool_call"); // the step's type, read with its text
    // The index keeps no copy of the text it matched (issue 36): its documents read back empty.
    const stored = sqlite.prepare("SELECT content FROM search_docs WHERE content IS NOT NULL LIMIT 1").all();
    expect(stored).toEqual([]);
    expect((sqlite.prepare("SELECT count(*) AS n FROM search_docs").get() as { n: number }).n).toBeGreaterThan(100);
  });

  it("combines step terms, words and trace terms: describe_table calls on a table in wrong traces", async () => {
    const [{ t }] = sqlite
      .prepare(
        "SELECT lower(j.value) AS t, count(*) AS n FROM steps s, json_each(s.tables) j WHERE s.trace_id IN (SELECT id FROM traces WHERE run_id = ?) GROUP BY 1 ORDER BY n DESC LIMIT 1",
      )
      .all(spiderRun) as { t: string }[];
    const expected = (
      sqlite
        .prepare(
          `SELECT DISTINCT s.trace_id AS id FROM steps s JOIN traces tr ON tr.id = s.trace_id, json_each(s.tables) j
           WHERE s.tool = 'describe_table' AND lower(j.value) = ? AND tr.ex_outcome IN ('wrong_result', 'pred_error')`,
        )
        .all(t) as { id: string }[]
    ).map((r) => r.id);
    const r = await searchTraces(asSql(sqlite), `tool:describe_table table:${t} outcome:wrong`, { limit: 1000 });
    expect(r.hits.map((h) => h.traceId).sort()).toEqual(expected.sort());
    expect(r.hits.every((h) => h.correct === 0)).toBe(true);
    const plain = (t: string) => t.replaceAll(MARK_START, "").replaceAll(MARK_END, "");
    expect(
      r.hits.every((h) => h.snippets.length > 0 && h.snippets.every((s) => plain(s.text).startsWith("describe_table"))),
    ).toBe(true);
  });

  it("the index follows delete and re-ingest", async () => {
    const [{ t }] = sqlite
      .prepare(
        "SELECT lower(j.value) AS t FROM steps s, json_each(s.tables) j WHERE s.trace_id IN (SELECT id FROM traces WHERE run_id = ?) LIMIT 1",
      )
      .all(spiderRun) as { t: string }[];
    const before = (await searchTraces(asSql(sqlite), `table:${t} run:"spider search"`)).total;
    expect(before).toBeGreaterThan(0);
    const docs = () => (sqlite.prepare("SELECT count(*) AS n FROM search_docs").get() as { n: number }).n;
    const withRun = docs();
    await deleteRun(asSql(sqlite), spiderRun);
    expect((await searchTraces(asSql(sqlite), `table:${t} run:"spider search"`)).total).toBe(0);
    expect((await searchTraces(asSql(sqlite), 'describe_table run:"spider search"')).total).toBe(0);
    expect(docs()).toBeLessThan(withRun);
    await ingestStream(asSql(sqlite), chunksOf(jsonl(...spiderLines), 1 << 16));
    expect(await syncSearchIndex(asSql(sqlite))).toEqual({ indexed: spiderLines.length, pending: 0 });
    expect(docs()).toBe(withRun);
    expect((await searchTraces(asSql(sqlite), 'describe_table run:"spider search"')).total).toBe(spiderLines.length);
  });

  it("never waits for a lock another connection holds (an upload in the same server): it leaves the work for later", async () => {
    await ingestStream(
      asSql(sqlite),
      chunksOf(
        jsonl({ run: { name: "late", system: "s", model: "m" }, question: { id: "0" }, steps: [makeStep()] }),
        1 << 16,
      ),
    );
    const upload = openConnection(store.file);
    await beginImmediate(upload); // held, as an upload holds it across its chunks
    try {
      // better-sqlite3 waits synchronously: waiting here would stop the server for METRON_BUSY_TIMEOUT_MS (300 s).
      expect(await syncSearchIndex(asSql(sqlite))).toEqual({ indexed: 0, pending: 1 });
      expect((await searchTraces(asSql(sqlite), "list_tables run:late")).notIndexed).toBe(1);
    } finally {
      upload.exec("ROLLBACK");
      upload.close();
    }
    expect(await syncSearchIndex(asSql(sqlite))).toEqual({ indexed: 1, pending: 0 }); // the lock free, the trace is indexed
  });

  it("counts the unindexed traces only after a write: a search of an unchanged store walks neither table", async () => {
    expect(await syncSearchIndex(asSql(sqlite))).toEqual({ indexed: 0, pending: 0 });
    expect(knownComplete(sqlite)).toBe(true); // the next sync returns at once
    expect((await searchTraces(asSql(sqlite), "describe_table")).total).toBeGreaterThan(0);
    expect(knownComplete(sqlite)).toBe(true); // a search writes nothing
    // Another connection's commit (the CLI's ingest while the server runs) moves the stamp.
    const cli = openConnection(store.file);
    try {
      await ingestStream(
        asSql(cli),
        chunksOf(
          jsonl({ run: { name: "from the cli", system: "s", model: "m" }, question: { id: "0" }, steps: [makeStep()] }),
          1 << 16,
        ),
      );
    } finally {
      cli.close();
    }
    expect(knownComplete(sqlite)).toBe(false);
    expect((await searchTraces(asSql(sqlite), 'list_tables run:"from the cli"')).total).toBe(1);
    expect(knownComplete(sqlite)).toBe(true);
    // This connection's own write moves it too: a deleted run's traces leave the index.
    await deleteRun(
      asSql(sqlite),
      (await one(asSql(sqlite), raw<{ id: string }>`SELECT id FROM runs WHERE name = 'from the cli'`))!.id,
    );
    expect(knownComplete(sqlite)).toBe(false);
    expect((await searchTraces(asSql(sqlite), 'list_tables run:"from the cli"')).total).toBe(0);
  });

  it("leaves the store a note that every trace is indexed: a connection that has not counted (a server's first search) reads it instead of counting, until a trace or a run changes", async () => {
    const note = () =>
      sqlite.prepare("SELECT versions FROM derived_cache WHERE kind = 'search-complete' AND runs = ''").get() as
        { versions: string } | undefined;
    /** A new connection's sync (a server just started) and whether it counted both tables. */
    const freshSync = async () => {
      const conn = openConnection(store.file);
      const prepared: string[] = [];
      const prepare = conn.prepare.bind(conn);
      conn.prepare = ((text: string) => (prepared.push(text), prepare(text))) as typeof conn.prepare;
      try {
        const result = await syncSearchIndex(asSql(conn));
        return { result, counted: prepared.some((t) => /count\(\*\)/i.test(t)), complete: knownComplete(conn) };
      } finally {
        conn.close();
      }
    };
    expect(await syncSearchIndex(asSql(sqlite))).toEqual({ indexed: 0, pending: 0 });
    expect(note()?.versions).toMatch(/^\d+\|\d+\|[0-9a-f]{64}$/);
    expect(await freshSync()).toEqual({ result: { indexed: 0, pending: 0 }, counted: false, complete: true });
    // A new trace: the note no longer holds; the next connection counts, indexes it and notes the index complete again.
    const cli = openConnection(store.file);
    try {
      await ingestStream(
        asSql(cli),
        chunksOf(
          jsonl({ run: { name: "noted", system: "s", model: "m" }, question: { id: "0" }, steps: [makeStep()] }),
          1 << 16,
        ),
      );
    } finally {
      cli.close();
    }
    expect(await freshSync()).toEqual({ result: { indexed: 1, pending: 0 }, counted: true, complete: true });
    expect(await freshSync()).toMatchObject({ counted: false });
    // A run's write moves its version: counted again (nothing missing). A busy store does not get the note, and is
    // not waited for.
    await write(asSql(sqlite), raw`UPDATE runs SET version = version + 1 WHERE name = 'noted'`);
    const before = note()?.versions;
    const upload = openConnection(store.file);
    await beginImmediate(upload);
    try {
      expect(await freshSync()).toEqual({ result: { indexed: 0, pending: 0 }, counted: true, complete: true });
      expect(note()?.versions).toBe(before);
    } finally {
      upload.exec("ROLLBACK");
      upload.close();
    }
    expect(await freshSync()).toMatchObject({ counted: true });
    expect(note()?.versions).not.toBe(before);
    expect(await freshSync()).toMatchObject({ counted: false });
    // The search finds the noted run's trace, as ever.
    expect((await searchTraces(asSql(sqlite), 'list_tables run:"noted"')).total).toBe(1);
  });

  it("indexes a run deleted and uploaded again, though the store then looks as it did when the index was noted complete", async () => {
    // The last rows of the store: deleted, their rowids are given again, and the run is created again at the same
    // version. Only the deletion can tell the note it no longer holds.
    const line = jsonl({
      run: { name: "uploaded twice", system: "s", model: "m" },
      question: { id: "0" },
      steps: [makeStep({ tool: "list_tables", args: {}, result: "twice_table" })],
    });
    const run = (await ingestStream(asSql(sqlite), chunksOf(line, 1 << 16))).runs[0].id;
    expect((await syncSearchIndex(asSql(sqlite))).pending).toBe(0);
    expect(await syncSearchIndex(asSql(sqlite))).toEqual({ indexed: 0, pending: 0 });
    expect((await searchTraces(asSql(sqlite), "twice_table")).total).toBe(1);
    // No search between the deletion and the upload (the store's note is not looked at in between).
    await deleteRun(asSql(sqlite), run);
    await ingestStream(asSql(sqlite), chunksOf(line, 1 << 16));
    expect((await searchTraces(asSql(sqlite), "twice_table")).total).toBe(1);
  });

  it("keeps FTS5's automerge and crisis merge at 32 (migrations 0023, 0024), and stays whole and exact through many small indexings and deletes", async () => {
    const small = tempDb();
    try {
      const db = small.db.$client;
      // The migrations' settings, stored with the index (FTS5's defaults are 4 and 16: merging was a third of a build).
      expect(db.prepare("SELECT k, v FROM search_docs_config WHERE k LIKE '%merge' ORDER BY k").all()).toEqual([
        { k: "automerge", v: 32 },
        { k: "crisismerge", v: 32 },
      ]);
      // Each sync below is a transaction of its own, so a segment of its own: 48 of them (more than a level holds
      // before it is merged), every sixth run deleted.
      const runs: { id: string; word: string }[] = [];
      for (let k = 0; k < 48; k++) {
        const word = `segword${k}`;
        const line = {
          run: { name: `segment ${k}`, system: "s", model: "m" },
          question: { id: "0" },
          steps: [makeStep({ tool: "read_query", args: { query: `SELECT ${word} FROM t` } })],
        };
        const id = (await ingestStream(asSql(db), chunksOf(jsonl(line), 1 << 16))).runs[0].id;
        expect(await syncSearchIndex(asSql(db))).toEqual({ indexed: 1, pending: 0 });
        runs.push({ id, word });
        if (k % 6 === 5) await deleteRun(asSql(db), runs[k - 3].id);
      }
      db.exec("INSERT INTO search_docs(search_docs, rank) VALUES('integrity-check', 0)"); // throws when corrupt
      for (const [k, r] of runs.entries()) {
        const deleted = k % 6 === 2;
        expect((await searchTraces(asSql(db), r.word)).total, r.word).toBe(deleted ? 0 : 1);
      }
      expect((await searchTraces(asSql(db), "read_query")).total).toBe(40);
    } finally {
      small.cleanup();
    }
  });
});

describe("migrations 0023 and 0024 on a store indexed before them", () => {
  it("change how the index merges, not what it holds: real traces indexed before and after are all found", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "metron-store-"));
    // The migrations up to 0022, as a store of yesterday's Metron has them.
    const before = foldersBefore(path.resolve("drizzle"), "0023_search_automerge");
    try {
      const conn = openConnection(path.join(dir, "store.db"));
      try {
        const { drizzle } = await import("drizzle-orm/better-sqlite3");
        const { migrate } = await import("drizzle-orm/better-sqlite3/migrator");
        migrate(drizzle(conn), { migrationsFolder: before });
        const sql = asSql(conn);
        const merges = () => conn.prepare("SELECT k, v FROM search_docs_config WHERE k LIKE '%merge' ORDER BY k").all();
        expect(merges()).toEqual([]); // FTS5's defaults (4 and 16)
        // Real files: a LiveSQLBench agent sample before the upgrade, a Claude Code session after it.
        await ingestFile(sql, sharedData("traces", "livesqlbench-adk", "single_turn_samples.json"));
        const first = await syncSearchIndex(sql);
        expect(first.indexed).toBeGreaterThan(0);
        const word = "get_all_column_meanings"; // a tool of the LiveSQLBench agent
        const found = (await searchTraces(sql, word)).total;
        expect(found).toBeGreaterThan(0);
        migrate(drizzle(conn), { migrationsFolder: path.resolve("drizzle") });
        expect(merges()).toEqual([
          { k: "automerge", v: 32 },
          { k: "crisismerge", v: 32 },
        ]);
        expect((await searchTraces(sql, word)).total).toBe(found); // the documents indexed before are kept
        await ingestFile(sql, sharedData("traces", "claude-code", "session_b.jsonl"));
        expect((await syncSearchIndex(sql)).pending).toBe(0);
        conn.exec("INSERT INTO search_docs(search_docs, rank) VALUES('integrity-check', 0)"); // throws when corrupt
        const traces = (conn.prepare("SELECT count(*) AS n FROM traces").get() as { n: number }).n;
        const indexed = (conn.prepare("SELECT count(*) AS n FROM search_indexed").get() as { n: number }).n;
        expect(indexed).toBe(traces);
        expect(traces).toBeGreaterThan(first.indexed);
        expect((await searchTraces(sql, word)).total).toBe(found);
      } finally {
        conn.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      rmSync(before, { recursive: true, force: true });
    }
  });
});

// The same store moved to PostgreSQL (METRON_TEST_DATABASE_URL; `npm test` starts one): its own index (a tsvector with
// a GIN index) finds the same traces for the same queries.
describe.runIf(testPostgresUrl)("full-text search on PostgreSQL", () => {
  let pg: Awaited<ReturnType<typeof tempPostgres>>;
  beforeAll(async () => {
    pg = await tempPostgres();
    const dir = path.join(store.dir, "export-for-search");
    await exportStore(store.sql, dir);
    await importStore(pg.sql, dir);
  }, 120_000);
  afterAll(async () => pg?.cleanup());

  const ids = async (s: Sql, q: string) =>
    (await searchTraces(s, q, { limit: 1000 })).hits.map((h) => h.traceId).sort();

  it("indexes every trace, and finds what SQLite finds for words, tables, tools, outcomes and labels", async () => {
    const traces = (await one(pg.sql, raw<{ n: number }>`SELECT count(*) AS n FROM traces`))!.n;
    const labelled = (await one(pg.sql, raw<{ id: string }>`SELECT id FROM traces ORDER BY id LIMIT 1`))!.id;
    await setLabel(pg.sql, labelled, "join");
    await setLabel(asSql(sqlite), labelled, "join");
    expect(await syncSearchIndex(pg.sql)).toEqual({ indexed: traces, pending: 0 });
    const [{ t }] = sqlite
      .prepare(
        "SELECT lower(j.value) AS t FROM steps s, json_each(s.tables) j GROUP BY 1 ORDER BY count(*) DESC LIMIT 1",
      )
      .all() as { t: string }[];
    for (const q of [
      "execute_sql",
      `table:${t}`,
      `tool:describe_table table:${t}`,
      `describe_table table:${t} outcome:unjudged`,
      "describe_table -execute_sql",
      '"CREATE TABLE"',
      "label:join",
    ]) {
      const expected = await ids(asSql(sqlite), q);
      expect({ q, n: expected.length > 0 }).toEqual({ q, n: true });
      expect({ q, hits: await ids(pg.sql, q) }).toEqual({ q, hits: expected });
    }
    const hit = (await searchTraces(pg.sql, "execute_sql", { limit: 1 })).hits[0];
    // Snippets are marked by Metron, not by the engine (the index keeps no text): the identifier whole, as on SQLite.
    const text = hit.snippets[0].text;
    expect(text).toContain(`${MARK_START}execute_sql${MARK_END}`);
  });

  it("keeps the store's note that every trace is indexed: a search does not count both tables while it holds, and a run deleted and uploaded again is indexed", async () => {
    /** A sync, and whether it counted the traces (the statements it sent, outside and inside its transactions). */
    const spiedSync = async () => {
      const texts: string[] = [];
      const spy = (s: Sql): Sql =>
        new Proxy(s, {
          get(target, prop) {
            if (prop === "compiled")
              return {
                all: (t: string, p?: never) => (texts.push(t), target.compiled.all(t, p)),
                get: (t: string, p?: never) => (texts.push(t), target.compiled.get(t, p)),
                run: (t: string, p?: never) => (texts.push(t), target.compiled.run(t, p)),
              };
            if (prop === "transaction")
              return (fn: (tx: Sql) => Promise<unknown>, o?: { readOnly?: boolean }) =>
                target.transaction((tx) => fn(spy(tx)), o);
            const v = Reflect.get(target, prop) as unknown;
            return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
          },
        });
      const result = await syncSearchIndex(spy(pg.sql));
      return { result, counted: texts.some((t) => /count\(\*\)[\s\S]*from "traces"/i.test(t)) };
    };
    const line = jsonl({
      run: { name: "noted on postgres", system: "s", model: "m" },
      question: { id: "0" },
      steps: [makeStep({ tool: "list_tables", args: {}, result: "pg_twice_table" })],
    });
    await syncSearchIndex(pg.sql);
    expect(await spiedSync()).toEqual({ result: { indexed: 0, pending: 0 }, counted: false });
    const note = async () =>
      (await one(pg.sql, raw<{ v: string }>`SELECT versions AS v FROM derived_cache WHERE kind = 'search-complete'`))
        ?.v;
    expect(await note()).toMatch(/^\d+\|\d+\|[0-9a-f]{64}$/);
    // An upload moves the stamp: counted, indexed without a second count (its last batch ran out), noted again.
    const run = (await ingestStream(pg.sql, chunksOf(line, 1 << 16))).runs[0].id;
    expect(await spiedSync()).toEqual({ result: { indexed: 1, pending: 0 }, counted: true });
    expect(await spiedSync()).toEqual({ result: { indexed: 0, pending: 0 }, counted: false });
    // Deleted and uploaded again, with no search between: indexed again.
    await deleteRun(pg.sql, run);
    await ingestStream(pg.sql, chunksOf(line, 1 << 16));
    expect(await spiedSync()).toEqual({ result: { indexed: 1, pending: 0 }, counted: true });
    expect((await searchTraces(pg.sql, "pg_twice_table")).total).toBe(1);
  });

  it("follows a deleted run", async () => {
    const run = (await one(pg.sql, raw<{ id: string }>`SELECT id FROM runs WHERE name = 'spider search'`))!.id;
    expect((await searchTraces(pg.sql, 'describe_table run:"spider search"')).total).toBeGreaterThan(0);
    await deleteRun(pg.sql, run);
    expect((await searchTraces(pg.sql, 'describe_table run:"spider search"')).total).toBe(0);
    expect(
      (await one(
        pg.sql,
        raw<{ n: number }>`SELECT count(*) AS n FROM search_docs WHERE trace_id NOT IN (SELECT id FROM traces)`,
      ))!.n,
    ).toBe(0);
  });
});

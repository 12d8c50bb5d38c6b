/**
 * Typed queries (lib/db/typed.ts): compiled by Kysely for the store's engine and run through `Sql` unrewritten, with
 * the same answers on SQLite and PostgreSQL; a column the schema does not have fails the type check.
 */
import { describe, expect, it } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { jsonl, makeTraceLine } from "@/lib/testing/factories";
import { countOutcomes, listRunFacets, listRunModels } from "./queries/runs";
import { listSearchFacets } from "./queries/search-facets";
import { listRunToolCounts } from "./queries/units";
import { listUploadErrors } from "./queries/uploads";
import { countQuestions, listDatabases, listDatasets, listQuestions } from "./queries/datasets";
import { importSpiderDe } from "@/lib/testing/spider-de";
import type { RawBuilder } from "kysely";
import { insertArrays, insertText, many, one, qb, raw } from "./typed";
import { keepBlob } from "@/lib/ingest/upload-writer";

describe.each(ENGINES)("typed queries (%s store)", (engine) => {
  const store = useEngineStore(engine, async (s) => {
    const line = (system: string, model: string, status: string) =>
      makeTraceLine({ run: { name: `${system} ${model}`, system, model }, outcome: { status } });
    await ingestStream(
      s.sql,
      chunksOf(
        jsonl(
          line("beta", "Zeta-1", "correct"),
          line("beta", "Zeta-1", "wrong"),
          line("Alpha", "alpha-2", "wrong"),
          line("Ärger", "_m", "wrong"),
        ),
      ),
    );
  });

  it("order text by code point, as the untyped queries did (upper case, then _, then lower case, then accents)", async () => {
    expect(await listRunFacets(store.sql)).toEqual({
      systems: ["Alpha", "beta", "Ärger"],
      models: ["Zeta-1", "_m", "alpha-2"],
    });
    expect(await listRunModels(store.sql)).toEqual(["Zeta-1", "_m", "alpha-2"]);
  });

  it("count a run's outcomes, not evaluated yet where EX has not run, as numbers", async () => {
    const run = (await one(store.sql, raw<{ id: string }>`SELECT id FROM runs WHERE system = 'beta'`))!.id;
    expect(await countOutcomes(store.sql, run)).toEqual([{ outcome: "not evaluated yet", n: 2 }]);
  });

  it("compile with the engine's own placeholders and quoting, and keep camelCase aliases", async () => {
    const q = qb(store.sql).selectFrom("runs").select(["dataset_id as datasetId", "name"]).where("system", "=", "beta");
    const { sql: text } = q.compile();
    expect(text).toContain(engine === "PostgreSQL" ? "$1" : "?");
    expect(await many(store.sql, q)).toEqual([{ datasetId: null, name: "beta Zeta-1" }]);
  });

  it("list the search page's facets, a run's tool counts and an upload's errors, as the store holds them", async () => {
    const facets = await listSearchFacets(store.sql);
    expect(facets).toMatchObject({ datasets: [], systems: ["Alpha", "beta", "Ärger"], labels: [] });
    expect(facets.tools.length).toBeGreaterThan(0);
    const run = (await one(store.sql, raw<{ id: string }>`SELECT id FROM runs WHERE system = 'beta'`))!.id;
    const tools = await listRunToolCounts(store.sql, run);
    const expected = await many(
      store.sql,
      raw<{ tool: string; calls: number }>`SELECT tool, calls FROM run_tool_counts WHERE run_id = ${run}`,
    );
    expect(tools.map((t) => t.tool).sort()).toEqual(expected.map((t) => t.tool).sort());
    for (let i = 1; i < tools.length; i++) expect(tools[i - 1].calls).toBeGreaterThanOrEqual(tools[i].calls);
    const report = await ingestStream(
      store.sql,
      chunksOf(["not json", "{}", JSON.stringify(makeTraceLine())].join("\n")),
    );
    const errors = await listUploadErrors(store.sql, report.upload_id);
    expect(errors.map((e) => e.line)).toEqual([1, 2]);
    expect(errors[0].message).toMatch(/invalid JSON/);
  });

  it("refuse, at type-check time, a column the schema does not have", () => {
    const q = qb(store.sql).selectFrom("runs");
    // @ts-expect-error -- `runname` is not a column of runs: `tsc` (in npm test) fails if this line type-checks.
    // Kysely itself does not check at run time: the type check is the guard.
    expect(() => q.select("runname").compile()).not.toThrow();
  });
});

describe.each(ENGINES)("dataset queries, typed (%s store)", (engine) => {
  const store = useEngineStore(engine, (s) => importSpiderDe(s));
  const count = async (query: RawBuilder<unknown>) => Number((await one<{ n: number }>(store.sql, query as never))!.n);

  it("list the real Spider-de dataset with its databases, questions and runs counted", async () => {
    const [d] = await listDatasets(store.sql);
    expect(d).toMatchObject({ id: "spider-de", name: "spider-de", format: "spider", runs: 0, schemaOnly: 0 });
    expect(d.databases).toBe(await count(raw`SELECT count(*) AS n FROM databases WHERE dataset_id = 'spider-de'`));
    expect(d.databases).toBeGreaterThan(10);
    expect(d.questionCount).toBe(await countQuestions(store.sql, "spider-de"));
  });

  it("list its databases by code point, each with its questions, and page through the questions in order", async () => {
    const dbs = await listDatabases(store.sql, "spider-de");
    expect(dbs.map((b) => b.dbId)).toEqual([...dbs.map((b) => b.dbId)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    const singer = dbs.find((b) => b.dbId === "concert_singer")!;
    expect(singer.questions).toBe(
      await count(raw`SELECT count(*) AS n FROM questions WHERE dataset_id = 'spider-de' AND db_id = 'concert_singer'`),
    );
    expect(typeof singer.schemaOnly).toBe("number");
    const total = await countQuestions(store.sql, "spider-de");
    const first = await listQuestions(store.sql, "spider-de", 1, 25);
    const second = await listQuestions(store.sql, "spider-de", 2, 25);
    expect(first.total).toBe(total);
    expect(first.rows).toHaveLength(25);
    const ids = (
      await many(
        store.sql,
        raw<{
          id: string;
        }>`SELECT question_id AS id FROM questions WHERE dataset_id = 'spider-de' ORDER BY position LIMIT 50`,
      )
    ).map((r) => r.id);
    expect([...first.rows, ...second.rows].map((r) => r.questionId)).toEqual(ids);
    expect(typeof first.rows[0].goldTables).toBe("string"); // stored JSON text, as the page decodes it
  });
});

describe.each(ENGINES)("inserts by shape (%s store)", (engine) => {
  const store = useEngineStore(engine);

  it("write rows given as arrays in batches under the parameter limits, and the statement of a shape once", async () => {
    const rows = Array.from({ length: 2_345 }, (_, i) => [`hash-${i}`, `content ${i}`]);
    // 2 columns: 1,000 rows a statement, so three statements, the last of 345 rows.
    const first = insertText(store.sql.dialect, "blobs", ["hash", "content"], 1000, keepBlob);
    expect(first.match(/\?|\$\d+/g)).toHaveLength(2000);
    expect(insertText(store.sql.dialect, "blobs", ["hash", "content"], 1000, keepBlob)).toBe(first); // cached
    await insertArrays(store.sql, "blobs", ["hash", "content"], rows, keepBlob);
    // Again: every row is kept as it is (ON CONFLICT DO NOTHING), nothing fails.
    await insertArrays(store.sql, "blobs", ["hash", "content"], [["hash-7", "another content"]], keepBlob);
    const stored = await many(store.sql, qb(store.sql).selectFrom("blobs").select(["hash", "content"]));
    expect(stored).toHaveLength(2_345);
    expect(stored.find((b) => b.hash === "hash-7")?.content).toBe("content 7");
  });
});

import { describe, expect, it } from "vitest";
import { importDataset } from "@/lib/datasets/import-dataset";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { jsonl } from "@/lib/testing/factories";
import { sharedData } from "@/lib/testing/shared-data";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { ingestStream } from "./ingest";
import { many, one, raw } from "@/lib/db/typed";

describe.each(ENGINES)("on the %s store", (engine) => {
  const store = useEngineStore(engine);

  // Spider-de question 22: "SELECT T2.name, count(*) FROM konzert AS T1 JOIN stadion AS T2 …" — gold tables konzert, stadion.
  const trace = (run: object, extra: object = {}) => ({
    run: { name: "measured", system: "No Directives", model: "gpt-4o", ...run },
    question: { id: "22" },
    directives: { strategy: "oracle", irrelevant_tables: ["sänger", "sänger_im_konzert"], at_step: 0 },
    steps: [
      { type: "tool_call", tool: "list_tables", args: {}, result: "stadion\nsänger\nkonzert\nsänger_im_konzert" },
      { type: "tool_call", tool: "describe_table", args: { table_name: "KONZERT" } },
      { type: "tool_call", tool: "read_query", args: { query: "PRAGMA table_info(stadion)" } },
      { type: "tool_call", tool: "describe_table", args: { table_name: "sänger" } },
      { type: "tool_call", tool: "read_query", args: { query: "SELECT * FROM konzert LIMIT 3" } },
      {
        type: "tool_call",
        tool: "submit_final_query",
        args: {
          query:
            "SELECT T2.name, count(*) FROM konzert T1 JOIN stadion T2 ON T1.stadion_id = T2.stadion_id JOIN sänger S ON 1 GROUP BY 1",
        },
      },
    ],
    outcome: { correct: false },
    usage: { input_tokens: 10_000, output_tokens: 1_000 },
    ...extra,
  });

  type Row = Record<string, unknown> & { table_sets: string };
  const traceRow = async (name: string) =>
    (await one(
      store.sql,
      raw<Record<string, unknown>>`SELECT t.* FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = ${name}`,
    )) as Row;

  describe("metrics at ingest, against a real Spider-de database", () => {
    it("prices no trace whose tokens were not recorded: its cost is unknown, not $0, for a priced model (issue 30)", async () => {
      await ingestStream(
        store.sql,
        chunksOf(
          jsonl(
            { run: { name: "no usage", system: "s", model: "gpt-4o" }, question: { id: "1" }, steps: [] },
            {
              run: { name: "no usage", system: "s", model: "gpt-4o" },
              question: { id: "2" },
              steps: [],
              usage: { input_tokens: 1000, output_tokens: 100 },
            },
          ),
        ),
      );
      const rows = await many(
        store.sql,
        raw<{
          q: string;
          cost: number | null;
          recorded: number;
        }>`SELECT question_id AS q, cost_computed_usd AS cost, tokens_recorded AS recorded FROM traces t
           JOIN runs r ON r.id = t.run_id WHERE r.name = 'no usage' ORDER BY question_id`,
      );
      expect(rows[0]).toMatchObject({ q: "1", cost: null });
      expect(Number(rows[0].recorded)).toBe(0);
      expect(rows[1].cost).toBeCloseTo((1000 * 2.5 + 100 * 10) / 1e6);
    });

    it("reads a sqlite_master probe's tables as SQLite evaluates its filter on the question's database (issue 30)", async () => {
      await importSpiderDe(store);
      const probe = (query: string) => ({ type: "tool_call", tool: "read_query", args: { query } });
      const probes = [
        `SELECT "sql" FROM "sqlite_master" WHERE "name" = 'stadion'`, // quoted identifiers
        "SELECT sql FROM sqlite_master WHERE 'konzert' = name", // reversed comparison
        "SELECT sql FROM sqlite_master WHERE name = 'sänger' OR name = 'sänger_im_konzert'", // two tables
        "SELECT sql FROM sqlite_master m WHERE lower(m.name) = 'stadion' AND m.type = 'table'", // only SQLite knows
        "SELECT sql FROM sqlite_master WHERE name LIKE 'sänger%'", // a pattern: both sänger tables
        "SELECT name FROM sqlite_master WHERE type = 'table'", // every table: a listing, not an exploration
      ];
      await ingestStream(
        store.sql,
        chunksOf(
          jsonl({
            run: { name: "probes", system: "s", model: "gpt-4o", benchmark: "spider-de" },
            question: { id: "22" },
            steps: probes.map(probe),
          }),
        ),
      );
      const row = await traceRow("probes");
      const steps = await many(
        store.sql,
        raw<{
          tables: string;
          exploratory: number;
        }>`SELECT tables, exploratory FROM steps WHERE trace_id = ${row.id as string} ORDER BY seq`,
      );
      expect(steps.map((s) => [JSON.parse(s.tables), s.exploratory])).toEqual([
        [["stadion"], 1],
        [["konzert"], 1],
        [["sänger", "sänger_im_konzert"], 1],
        [["stadion"], 1],
        [["sänger", "sänger_im_konzert"], 1],
        [["sqlite_master"], 0], // the table it reads; no table's schema row in particular
      ]);
      expect(row.exploratory_calls).toBe(5);
      expect(JSON.parse(row.table_sets).explored).toEqual(["stadion", "konzert", "sänger", "sänger_im_konzert"]);
    });

    it("measures a trace whose run names its benchmark", async () => {
      await importSpiderDe(store);
      await ingestStream(store.sql, chunksOf(jsonl(trace({ benchmark: "spider-de" }))));
      const row = await traceRow("measured");
      expect(row).toMatchObject({
        db_id: "concert_singer",
        exploratory_calls: 3,
        gold_count: 2,
        over_exploration: 1,
        extra_table_count: 1,
        directive_recall: 1,
        directive_flag_rate: 1,
        violation_count: 1,
        calls_schema_listing: 1,
        calls_schema_exploration: 2,
        calls_data_inspection: 2,
        calls_submission: 1,
      });
      expect(row.cost_computed_usd).toBeCloseTo((10_000 * 2.5 + 1_000 * 10) / 1e6);
      const sets = JSON.parse(row.table_sets);
      expect(sets).toMatchObject({
        gold: ["konzert", "stadion"],
        goldMethod: "explain",
        explored: ["konzert", "stadion", "sänger"],
        nonGoldExplored: ["sänger"],
        final: ["konzert", "sänger", "stadion"],
        finalMethod: "explain",
        extra: ["sänger"],
        violations: ["sänger"],
      });
      const steps = await many(
        store.sql,
        raw<
          Record<string, unknown>
        >`SELECT tool_role AS role, tables, exploratory FROM steps WHERE trace_id = ${row.id as string} ORDER BY seq`,
      );
      expect(steps[1]).toEqual({ role: "schema_exploration", tables: '["konzert"]', exploratory: 1 });
      expect(steps[4]).toEqual({ role: "data_inspection", tables: '["konzert"]', exploratory: 0 });
    });

    it("links traces uploaded before their dataset when it is imported, and recomputes", async () => {
      await ingestStream(
        store.sql,
        chunksOf(
          jsonl(trace({ name: "early", benchmark: "spider-de-late" }, { question: { id: "22", gold_sql: undefined } })),
        ),
      );
      expect(await traceRow("early")).toMatchObject({ gold_count: null, over_exploration: null, exploratory_calls: 3 });
      const r = await importDataset(
        store.sql,
        {
          name: "spider-de-late",
          format: "spider",
          questions: sharedData("spider-de", "dev.json"),
          databases: sharedData("spider-de", "database"),
        },
        store.dir,
      );
      expect(r.linkedRuns).toHaveLength(1);
      expect(await traceRow("early")).toMatchObject({ db_id: "concert_singer", gold_count: 2, over_exploration: 1 });
    });

    it("refuses an upload naming a dataset that does not exist", async () => {
      await expect(ingestStream(store.sql, chunksOf(jsonl(trace({ name: "x" }))), { dataset: "nope" })).rejects.toThrow(
        'no dataset named "nope"',
      );
    });
  });
});

/** Issue-level checks of what Metron measures, through the real ingest on Spider-de (real databases and gold SQL). */
import { describe, expect, it } from "vitest";
import { getRunAggregates } from "@/lib/db/queries/runs";
import { listTraces } from "@/lib/db/queries/traces";
import { computeDirectiveSavings } from "@/lib/environment/directive-savings";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { jsonl, makeStep } from "@/lib/testing/factories";
import { ingestStream } from "./ingest";
import { recomputeRun } from "./recompute";
import { many, one, raw } from "@/lib/db/typed";

describe.each(ENGINES)("on the %s store", (engine) => {
  const store = useEngineStore(engine, async () => {
    await importSpiderDe(store);
  });

  const run = { name: "validity", system: "No Directives", model: "gpt-test", benchmark: "spider-de" };
  const describeCall = (table: string) => makeStep({ tool: "describe_table", args: { table_name: table } });

  describe("measured on Spider-de through ingest", () => {
    it("a failing gold query means unknown gold tables in the trace, the run figures and the CSV", async () => {
      // Question 2's gold SQL fails on the translation artefact `alter`; question 0's compiles.
      const report = await ingestStream(
        store.sql,
        chunksOf(
          jsonl(
            {
              run,
              question: { id: "2" },
              steps: [describeCall("sänger"), describeCall("konzert")],
              final_sql: "SELECT name FROM sänger",
            },
            {
              run,
              question: { id: "0" },
              steps: [describeCall("sänger"), describeCall("stadion")],
              final_sql: "SELECT count(*) FROM sänger",
            },
          ),
        ),
      );
      const rows = (await many(
        store.sql,
        raw<
          Record<string, unknown>
        >`SELECT question_id AS q, gold_count AS gold, over_exploration AS over, extra_table_count AS extra, table_sets AS sets FROM traces WHERE run_id = ${report.runs[0].id} ORDER BY q`,
      )) as {
        q: string;
        gold: number | null;
        over: number | null;
        extra: number | null;
        sets: string;
      }[];
      expect(rows[0]).toMatchObject({ q: "0", gold: 1, over: 1, extra: 0 });
      expect(rows[1]).toMatchObject({ q: "2", gold: null, over: null, extra: null });
      expect(JSON.parse(rows[1].sets)).toMatchObject({ gold: null, goldError: expect.stringMatching(/near "alter"/) });
      const a = await getRunAggregates(store.sql, report.runs[0].id);
      expect({ exploratory: a.exploratoryWithGold, gold: a.goldSum }).toEqual({ exploratory: 2, gold: 1 }); // question 2 left out
      const listed = (
        await listTraces(store.sql, report.runs[0].id, {
          sort: "question",
          dir: "asc",
          page: 1,
          pageSize: 10,
        })
      ).rows;
      expect(listed.find((r) => r.questionId === "2")).toMatchObject({ goldCount: null, overExploration: null });
    });

    it("measures and evaluates the SQL inside a Markdown fence, and says so in the report", async () => {
      const report = await ingestStream(
        store.sql,
        chunksOf(
          jsonl(
            {
              run: { ...run, name: "fenced" },
              question: { id: "22" },
              steps: [],
              final_sql:
                "Here is the query:\n```store.sql\nSELECT T2.name, count(*) FROM konzert AS T1 JOIN stadion AS T2 ON T1.stadion_id = T2.stadion_id JOIN sänger AS S ON 1 GROUP BY T1.stadion_id\n```",
            },
            {
              run: { ...run, name: "fenced" },
              question: { id: "0" },
              steps: [],
              final_sql: "SELECT count(*) FROM sänger",
            },
          ),
        ),
      );
      expect(report.warnings).toEqual([
        { line: 1, message: expect.stringMatching(/extracted from a Markdown code fence/) },
      ]);
      const t = (await one(
        store.sql,
        raw<
          Record<string, unknown>
        >`SELECT final_sql AS raw, extra_table_count AS extra, table_sets AS sets FROM traces WHERE run_id = ${report.runs[0].id} AND question_id = '22'`,
      )) as { raw: string; extra: number; sets: string };
      expect(t.raw).toMatch(/^Here is the query/); // the raw answer is kept
      expect(t.extra).toBe(1);
      expect(JSON.parse(t.sets).extra).toEqual(["sänger"]);
    });

    it("counts empty-result probes and marks the refinement, and recompute keeps them", async () => {
      const probe = (query: string, result: string) => makeStep({ tool: "read_query", args: { query }, result });
      const report = await ingestStream(
        store.sql,
        chunksOf(
          jsonl({
            run: { ...run, name: "sde" },
            question: { id: "0" },
            final_sql: "SELECT count(*) FROM sänger",
            steps: [
              probe("SELECT * FROM sänger WHERE land = 'frankreich'", "[]"),
              probe("SELECT * FROM sänger WHERE land = 'Frankreich'", '[["x"]]'),
              probe("SELECT count(*) FROM sänger", "6"),
              // A call that failed returned nothing because it did not run: not an empty-result probe.
              makeStep({
                tool: "read_query",
                args: { query: "SELEC * FROM sänger" },
                result: "",
                error: "syntax error",
              }),
            ],
          }),
        ),
      );
      const runId = report.runs[0].id;
      const read = async () => ({
        trace: await one(
          store.sql,
          raw<Record<string, unknown>>`SELECT empty_probe_count AS n FROM traces WHERE run_id = ${runId}`,
        ),
        steps: await many(
          store.sql,
          raw<
            Record<string, unknown>
          >`SELECT seq, empty_result AS empty, refines FROM steps WHERE trace_id = (SELECT id FROM traces WHERE run_id = ${runId}) ORDER BY seq`,
        ),
      });
      const expected = {
        trace: { n: 1 },
        steps: [
          { seq: 0, empty: 1, refines: null },
          { seq: 1, empty: 0, refines: 0 },
          { seq: 2, empty: 0, refines: null },
          { seq: 3, empty: null, refines: null },
        ],
      };
      expect(await read()).toEqual(expected);
      await recomputeRun(store.sql, runId);
      expect(await read()).toEqual(expected);
    });

    it("estimates what oracle directives would have saved for a run without directives", async () => {
      const report = await ingestStream(
        store.sql,
        chunksOf(
          jsonl(
            // Gold of 0: sänger. Four exploratory calls, two on non-gold tables the oracle flags.
            {
              run: { ...run, name: "savings" },
              question: { id: "0" },
              steps: [
                describeCall("sänger"),
                describeCall("konzert"),
                describeCall("stadion"),
                makeStep({ tool: "describe_table", args: {} }),
              ],
              final_sql: "SELECT count(*) FROM sänger",
            },
          ),
        ),
      );
      const savings = (await computeDirectiveSavings(store.sql, report.runs[0].id, { indexDir: store.dir }))!;
      // Measured (4 − 1) / 1 = 300 %; the oracle saves the konzert and stadion calls (not the call on no table): (2 − 1) / 1.
      expect(savings.oracle).toMatchObject({ traces: 1, exploratory: 4, saved: 2, gold: 1, measured: 3, estimated: 1 });
      expect(savings.computed.traces).toBe(1);
    });
  });
});

import { afterAll, describe, expect, it } from "vitest";
import { loadQuestionFrom } from "@/lib/environment/database-info";
import { directivesFor } from "@/lib/environment/directives";
import { SqlEnvironment } from "@/lib/environment/tools";
import { ingestStream } from "@/lib/ingest/ingest";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { startFakeOpenAI, type FakeServer } from "@/lib/testing/fake-openai";
import { runAgentLoop } from "./loop";
import { languageModel } from "./providers";
import { createSimulatedModel, SIMULATED_POLICIES } from "./simulated";
import { many, one, raw } from "@/lib/db/typed";

const KEY = "sk-test-SECRET-do-not-leak-4f1c";

describe.each(ENGINES)("on the %s store", (engine) => {
  const store = useEngineStore(engine, async () => {
    await importSpiderDe(store);
  });
  let fake: FakeServer | undefined;
  afterAll(async () => {
    await fake?.close();
  });

  const GOLD_22 =
    "SELECT T2.name , count(*) FROM konzert AS T1 JOIN stadion AS T2 ON T1.stadion_id = T2.stadion_id GROUP BY T1.stadion_id";

  async function ingestTrace(trace: Record<string, unknown>) {
    const report = await ingestStream(
      store.sql,
      (async function* () {
        yield Buffer.from(JSON.stringify(trace) + "\n");
      })(),
    );
    expect(report.errors).toEqual([]);
    return (await one(
      store.sql,
      raw<Record<string, unknown>>`SELECT * FROM traces WHERE run_id = ${report.runs[0].id} ORDER BY created_at DESC`,
    )) as Record<string, unknown>;
  }

  describe("the agent loop against a scripted OpenAI-compatible server, over a real Spider-de database", () => {
    it("records steps, usage and the final SQL; no key reaches the trace", async () => {
      fake = await startFakeOpenAI([
        { toolCalls: [{ name: "list_tables", args: {} }], usage: { prompt: 300, completion: 10 } },
        {
          toolCalls: [
            { name: "describe_table", args: { table_name: "konzert" } },
            { name: "describe_table", args: { table_name: "stadion" } },
          ],
          usage: { prompt: 600, completion: 30 },
        },
        {
          toolCalls: [{ name: "submit_final_query", args: { query: GOLD_22 } }],
          usage: { prompt: 900, completion: 40 },
        },
        { text: "done" },
      ]);
      const env = { ...process.env, METRON_OPENAI_COMPATIBLE_URL: fake.url, METRON_OPENAI_COMPATIBLE_KEY: KEY };
      const { question, database } = await loadQuestionFrom(store.sql, "spider-de", "22");
      const envr = new SqlEnvironment(question, database, {
        variant: "none",
        directives: null,
        run: { name: "loop test", model: "compatible:fake-model" },
      });
      const seen: number[] = [];
      const r = await runAgentLoop({
        model: languageModel("compatible", "fake-model", env),
        modelName: "fake-model",
        env: envr,
        onStep: (s) => seen.push(s.seq),
      });
      await envr.close();
      expect(r.status).toBe("submitted");
      expect(seen).toEqual([0, 1, 2, 3]);
      expect(fake.requests).toHaveLength(3); // stopped at the submission
      expect(fake.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
      expect((fake.requests[0].body.tools ?? []).length).toBe(5);
      const t = await ingestTrace(r.trace);
      expect(t).toMatchObject({
        final_sql: GOLD_22,
        status: "submitted",
        input_tokens: 1800,
        output_tokens: 80,
        step_count: 4,
        exploratory_calls: 2,
        gold_count: 2,
        over_exploration: 0,
      });
      const steps = await many(
        store.sql,
        raw<
          Record<string, unknown>
        >`SELECT tool, input_tokens FROM steps WHERE trace_id = ${t.id as string} ORDER BY seq`,
      );
      expect(steps).toEqual([
        { tool: "list_tables", input_tokens: 300 },
        { tool: "describe_table", input_tokens: 600 },
        { tool: "describe_table", input_tokens: null },
        { tool: "submit_final_query", input_tokens: 900 },
      ]);
      const stored = await many(
        store.sql,
        raw<{
          t: string;
        }>`SELECT coalesce(meta,'') || coalesce(directives,'') || coalesce(final_sql,'') AS t FROM traces`,
      );
      const stepText = await many(
        store.sql,
        raw<{ t: string }>`SELECT coalesce(args,'') || coalesce(result,'') || coalesce(content,'') AS t FROM steps`,
      );
      expect([...stored, ...stepText].map((r) => r.t).join("")).not.toContain(KEY);
      await fake.close();
      fake = undefined;
    });

    it("stops at the step limit and at the wall-time limit", async () => {
      fake = await startFakeOpenAI([{ toolCalls: [{ name: "list_tables", args: {} }] }]); // never submits
      const env = { ...process.env, METRON_OPENAI_COMPATIBLE_URL: fake.url };
      const { question, database } = await loadQuestionFrom(store.sql, "spider-de", "22");
      const e1 = new SqlEnvironment(question, database, { variant: "none", directives: null });
      const r1 = await runAgentLoop({
        model: languageModel("compatible", "m", env),
        modelName: "m",
        env: e1,
        limits: { maxSteps: 3, maxOutputTokens: 100, wallTimeMs: 10_000 },
      });
      expect(r1.status).toBe("max_steps");
      expect((r1.trace.steps as unknown[]).length).toBe(3);
      await fake.close();
      fake = await startFakeOpenAI([
        { toolCalls: [{ name: "list_tables", args: {} }] },
        { delayMs: 5_000, then: { text: "late" } },
      ]);
      const e2 = new SqlEnvironment(question, database, { variant: "none", directives: null });
      const r2 = await runAgentLoop({
        model: languageModel("compatible", "m", { ...env, METRON_OPENAI_COMPATIBLE_URL: fake.url }),
        modelName: "m",
        env: e2,
        limits: { maxSteps: 10, maxOutputTokens: 100, wallTimeMs: 600 },
      });
      expect(r2.status).toBe("timeout");
      expect(r2.error).toMatch(/wall-time limit of 600 ms/);
      expect((r2.trace.steps as { tool?: string }[])[0].tool).toBe("list_tables"); // the partial trace is kept
      await Promise.all([e1.close(), e2.close(), fake.close()]);
      fake = undefined;
    });

    it("ends with the provider's error shown and the partial trace kept", async () => {
      fake = await startFakeOpenAI([
        { toolCalls: [{ name: "list_tables", args: {} }] },
        { error: 500, message: "the model is on fire" },
      ]);
      const { question, database } = await loadQuestionFrom(store.sql, "spider-de", "22");
      const e = new SqlEnvironment(question, database, { variant: "none", directives: null });
      const r = await runAgentLoop({
        model: languageModel("compatible", "m", { ...process.env, METRON_OPENAI_COMPATIBLE_URL: fake.url }),
        modelName: "m",
        env: e,
      });
      expect(r.status).toBe("error");
      expect(r.error).toMatch(/the model is on fire/);
      const t = await ingestTrace(r.trace);
      expect(t).toMatchObject({ status: "error", step_count: 2 });
      expect(t.outcome_error).toMatch(/on fire/);
      await Promise.all([e.close(), fake.close()]);
      fake = undefined;
    });
  });

  describe("the simulated policy runs the real loop and tools", () => {
    it("explores gold tables, fewer distractors under oracle directives, and submits", async () => {
      const { question, database } = await loadQuestionFrom(store.sql, "spider-de", "22");
      const sim = {
        id: "22",
        goldSql: question.goldSql!,
        goldTables: question.goldTables!,
        tables: database.tables.map((t) => t.name),
      };
      const run = async (variant: "none" | "oracle", seed: number) => {
        const directives = await directivesFor(variant, question, database);
        const env = new SqlEnvironment(question, database, { variant, directives });
        const r = await runAgentLoop({
          model: createSimulatedModel(SIMULATED_POLICIES["sim-hasty"], sim, seed),
          modelName: "sim-hasty",
          env,
        });
        await env.close();
        return r;
      };
      const plain = await run("none", 3);
      expect(plain.status).toBe("submitted");
      const described = (r: typeof plain) =>
        (r.trace.steps as { tool?: string; args?: { table_name?: string } }[])
          .filter((s) => s.tool === "describe_table")
          .map((s) => s.args!.table_name);
      expect(described(plain)).toEqual(expect.arrayContaining(["konzert", "stadion"]));
      let withOracle = 0;
      let without = 0;
      for (let seed = 1; seed <= 10; seed++) {
        without += described(await run("none", seed)).length;
        withOracle += described(await run("oracle", seed)).length;
      }
      expect(withOracle).toBeLessThan(without);
      expect(await run("none", 3)).toMatchObject({ status: "submitted" }); // deterministic for a seed
    });
  });
});

import { JsonTraceSerializer, ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { gzipSync } from "node:zlib";
import { afterAll, describe, expect, it } from "vitest";
import { runAgentLoop } from "@/lib/agent/loop";
import { languageModel } from "@/lib/agent/providers";
import { sharedHandle } from "@/lib/db/sql";
import { loadQuestionFrom } from "@/lib/environment/database-info";
import { SqlEnvironment } from "@/lib/environment/tools";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { startFakeOpenAI, type FakeServer } from "@/lib/testing/fake-openai";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { decodeExportRequest } from "./decode";
import { registerContextManager } from "./emit";
import { assembleGroups } from "./assemble";
import { receiveSpans } from "./receiver";
import { many, one, raw } from "@/lib/db/typed";

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

  describe("the agent loop's OpenTelemetry spans, exported with the official serializers, received by Metron", () => {
    it("become one trace with its tool steps, arguments, results and tokens; sent again, nothing new", async () => {
      fake = await startFakeOpenAI([
        { toolCalls: [{ name: "list_tables", args: {} }], usage: { prompt: 300, completion: 10 } },
        {
          toolCalls: [{ name: "describe_table", args: { table_name: "konzert" } }],
          usage: { prompt: 600, completion: 30 },
        },
        {
          toolCalls: [{ name: "submit_final_query", args: { query: GOLD_22 } }],
          usage: { prompt: 900, completion: 40 },
        },
        { text: "done" },
      ]);
      registerContextManager(); // as an application's OpenTelemetry setup does (NodeSDK registers one)
      const exporter = new InMemorySpanExporter();
      const provider = new TracerProvider({
        resource: resourceFromAttributes({ "service.name": "sql-agent", "metron.run.system": "ai-sdk-agent" }),
        spanProcessors: [new SimpleSpanProcessor({ exporter })],
      });
      const env = { ...process.env, METRON_OPENAI_COMPATIBLE_URL: fake.url, METRON_OPENAI_COMPATIBLE_KEY: "sk-x" };
      const { question, database } = await loadQuestionFrom(store.sql, "spider-de", "22");
      const envr = new SqlEnvironment(question, database, { variant: "none", directives: null });
      const result = await runAgentLoop({
        model: languageModel("compatible", "fake-model", env),
        modelName: "compatible:fake-model",
        env: envr,
        telemetry: {
          tracer: provider.getTracer("test"),
          metadata: { "metron.run.name": "otel run", "metron.run.benchmark": "spider-de" },
        },
      });
      await envr.close();
      expect(result.status).toBe("submitted");
      await provider.forceFlush();
      const spans = exporter.getFinishedSpans();
      expect(spans.some((s) => s.name === "ai.toolCall")).toBe(true);

      // The same spans as protobuf (gzip) and as JSON decode to the same export.
      const proto = decodeExportRequest(
        gzipSync(Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!)),
        "application/x-protobuf",
        "gzip",
      );
      const json = decodeExportRequest(Buffer.from(JsonTraceSerializer.serializeRequest(spans)!), "application/json");
      const ids = (d: unknown) =>
        JSON.stringify(d)
          .match(/"spanId":"[0-9a-f]+"/g)
          ?.sort();
      expect(ids(proto)).toEqual(ids(json));

      const received = await receiveSpans(store.sql, proto);
      expect(received).toMatchObject({ accepted: spans.length, duplicates: 0, rejected: 0 });
      expect(received.complete).toHaveLength(1); // the root span (ai.generateText) arrived
      const outcomes = await assembleGroups(store.sql, () => sharedHandle(store.sql), { groups: received.complete });
      expect(outcomes).toMatchObject([{ inserted: 1, errors: [] }]);

      const trace = (await one(
        store.sql,
        raw`SELECT t.id, t.question_id, t.input_tokens, t.output_tokens, t.exploratory_calls, t.gold_count, t.final_sql, r.name, r.system, r.model
         FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = 'otel run'`,
      )) as Record<string, unknown>;
      expect(trace).toMatchObject({
        question_id: "22",
        input_tokens: 300 + 600 + 900, // the three model calls (the loop stops at the submission)
        output_tokens: 10 + 30 + 40,
        exploratory_calls: 1,
        gold_count: 2, // linked to Spider-de's question 22 through metron.run.benchmark: konzert and stadion
        final_sql: GOLD_22,
        system: "ai-sdk-agent",
        model: "compatible:fake-model", // metron.run.model, which the loop sets
      });
      const steps = (await many(
        store.sql,
        raw<
          Record<string, unknown>
        >`SELECT tool, args, result FROM steps WHERE trace_id = ${trace.id as string} AND type = 'tool_call' ORDER BY seq`,
      )) as { tool: string; args: string; result: string | null }[];
      expect(steps.map((s) => s.tool)).toEqual(["list_tables", "describe_table", "submit_final_query"]);
      expect(JSON.parse(steps[1].args)).toEqual({ table_name: "konzert" });
      expect(steps[1].result).toContain("konzert");

      // Sent again (an exporter's retry): every span is a duplicate, nothing is stored.
      const again = await receiveSpans(store.sql, json);
      expect(again).toMatchObject({ accepted: 0, duplicates: spans.length, complete: [] });
      expect(await one(store.sql, raw<Record<string, unknown>>`SELECT count(*) AS n FROM traces`)).toMatchObject({
        n: 1,
      });
    });
  });
});

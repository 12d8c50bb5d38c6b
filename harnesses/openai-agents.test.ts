/**
 * The OpenAI Agents SDK (pinned in harnesses/package-lock.json), instrumented by OpenInference's OpenAI
 * instrumentation — the route docs/formats.md documents for it — answering a real Spider-de question (22, gold
 * tables konzert and stadion) with Metron's environment as its tools, against a scripted fake model (Chat
 * Completions, fixed token usage per request). Its spans go through the OTLP wire format (the official protobuf
 * serializer) into Metron's receiver, and the stored trace is checked against what the script did.
 *
 * What the SDK really writes (seen here): each model call is a root span of an OTel trace of its own (the SDK's
 * agent loop is not OpenTelemetry), no tool span is recorded, and each tool's result is only in the next call's
 * `llm.input_messages.N.message` with role `tool`.
 */
import {
  Agent,
  BatchTraceProcessor,
  getGlobalTraceProvider,
  OpenAITracingExporter,
  run,
  setDefaultOpenAIClient,
  setOpenAIAPI,
  setTraceProcessors,
  setTracingDisabled,
  tool,
} from "@openai/agents";
import http from "node:http";
import { OpenAIInstrumentation } from "@arizeai/openinference-instrumentation-openai";
import OpenAI from "openai";
import { ProtobufTraceSerializer } from "@opentelemetry/otlp-transformer";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { sharedHandle } from "@/lib/db/sql";
import { loadQuestionFrom } from "@/lib/environment/database-info";
import { SqlEnvironment, type ToolName } from "@/lib/environment/tools";
import { directivesFor } from "@/lib/environment/directives";
import { evaluateRun } from "@/lib/eval/evaluate-run";
import { decodeExportRequest, notAnExport } from "@/lib/otel/decode";
import { assembleGroups } from "@/lib/otel/assemble";
import { receiveSpans } from "@/lib/otel/receiver";
import { engineStore, type EngineStore } from "@/lib/testing/engines";
import { startFakeOpenAI, type FakeServer } from "@/lib/testing/fake-openai";
import { importSpiderDe } from "@/lib/testing/spider-de";

const GOLD_22 =
  "SELECT T2.name , count(*) FROM konzert AS T1 JOIN stadion AS T2 ON T1.stadion_id = T2.stadion_id GROUP BY T1.stadion_id";
const USAGE = { prompt: 1000, completion: 20, cached: 600 };

/** The script every harness plays: list, describe a gold and a non-gold table, a probe, an error, 0 rows, submit. */
const SCRIPT = [
  { toolCalls: [{ name: "list_tables", args: {} }], usage: USAGE },
  { toolCalls: [{ name: "describe_table", args: { table_name: "konzert" } }], usage: USAGE },
  { toolCalls: [{ name: "describe_table", args: { table_name: "sänger" } }], usage: USAGE },
  { toolCalls: [{ name: "read_query", args: { query: "SELECT count(*) FROM stadion" } }], usage: USAGE },
  { toolCalls: [{ name: "read_query", args: { query: "SELECT * FROM konzerte" } }], usage: USAGE },
  { toolCalls: [{ name: "read_query", args: { query: "SELECT * FROM konzert WHERE 0" } }], usage: USAGE },
  { toolCalls: [{ name: "submit_final_query", args: { query: GOLD_22 } }], usage: USAGE },
  { text: "Done: the query is submitted.", usage: USAGE },
];

describe("the OpenAI Agents SDK 0.20 with OpenInference, over OTLP", () => {
  let store: EngineStore;
  let fake: FakeServer;
  beforeAll(async () => {
    store = await engineStore("SQLite");
    await importSpiderDe(store);
    fake = await startFakeOpenAI(SCRIPT);
  });
  afterAll(async () => {
    await fake?.close();
    await store?.cleanup();
  });

  it("one trace per agent session, with every tool result, the tokens (cached too), the final SQL and EX", async () => {
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({
      resource: resourceFromAttributes({
        "service.name": "agents-sdk",
        "metron.run.name": "agents sdk",
        "metron.run.system": "OpenAI Agents SDK",
        "metron.run.benchmark": "spider-de",
      }),
      spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
    });
    new OpenAIInstrumentation({ tracerProvider: provider }).manuallyInstrument(OpenAI);
    setTracingDisabled(true); // the SDK's own exporter would send to OpenAI's API
    setDefaultOpenAIClient(new OpenAI({ apiKey: "sk-fake", baseURL: fake.url }));
    setOpenAIAPI("chat_completions");

    const { question, database } = await loadQuestionFrom(store.sql, "spider-de", "22");
    // Sophrosyne-Oracle's directives: the non-gold tables, named in list_tables' result.
    const directives = await directivesFor("oracle", question, database);
    const env = new SqlEnvironment(question, database, { variant: "oracle", directives });
    // A tool that fails throws, as tool code does; the SDK then sends the model its own error text.
    const asTool = (name: ToolName, parameters: z.ZodObject) =>
      tool({
        name,
        description: name,
        parameters,
        execute: async (args) => {
          const text = await env.call(name, args);
          if (env.steps.at(-1)?.error) throw new Error(text);
          return text;
        },
      });
    const agent = new Agent({
      name: "sql-agent",
      instructions: "Answer with one SQLite query, submitted with submit_final_query.",
      model: "fake-sql",
      tools: [
        asTool("list_tables", z.object({})),
        asTool("describe_table", z.object({ table_name: z.string() })),
        asTool("read_query", z.object({ query: z.string() })),
        asTool("submit_final_query", z.object({ query: z.string() })),
      ],
    });
    const result = await run(agent, question.text, { maxTurns: 12 });
    await env.close();
    expect(result.finalOutput).toBe("Done: the query is submitted.");
    await provider.forceFlush();
    const spans = memory.getFinishedSpans();
    expect(spans).toHaveLength(SCRIPT.length);
    expect(new Set(spans.map((s) => s.spanContext().traceId)).size).toBe(SCRIPT.length); // each call its own trace

    // Over the wire as the OTLP/HTTP exporter sends it, into the receiver; the session closes once quiet.
    const doc = decodeExportRequest(
      Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!),
      "application/x-protobuf",
    );
    const received = await receiveSpans(store.sql, doc);
    expect(received).toMatchObject({ accepted: SCRIPT.length, rejected: 0, complete: [] });
    await assembleGroups(store.sql, () => sharedHandle(store.sql), { now: Date.now() + 3_600_000 });

    const traces = await store.sql.compiled.all<Record<string, unknown>>(
      `SELECT t.*, r.id AS run_id FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = 'agents sdk'`,
    );
    expect(traces).toHaveLength(1); // one agent session, not one trace per model call
    const t = traces[0];
    expect(t).toMatchObject({
      question_id: "22",
      gold_count: 2,
      final_sql: GOLD_22,
      input_tokens: SCRIPT.length * USAGE.prompt,
      output_tokens: SCRIPT.length * USAGE.completion,
      cached_input_tokens: SCRIPT.length * USAGE.cached,
      exploratory_calls: 2, // konzert and sänger described; list_tables and the queries are not schema probes
      empty_probe_count: 1, // SELECT * FROM konzert WHERE 0
      error_step_count: 1, // konzerte: no such table
      // The directives, read from the list_tables result the SDK sent back to the model: sänger was described.
      violation_count: 1,
      directive_recall: 1,
    });
    const steps = await store.sql.compiled.all<{
      tool: string;
      args: string;
      result: string | null;
      error: string | null;
    }>("SELECT tool, args, result, error FROM steps WHERE trace_id = ? AND type = 'tool_call' ORDER BY seq", [
      t.id as string,
    ]);
    expect(steps.map((s) => s.tool)).toEqual([
      "list_tables",
      "describe_table",
      "describe_table",
      "read_query",
      "read_query",
      "read_query",
      "submit_final_query",
    ]);
    expect(steps.every((s) => s.result !== null)).toBe(true); // every result, from the next call's tool message
    expect(steps[0].result).toContain("konzert");
    expect(JSON.parse(t.directives as string)).toMatchObject({
      irrelevant_tables: ["sänger", "sänger_im_konzert"],
      at_step: 2, // the question, the model's turn, then list_tables
    });
    expect(JSON.parse(steps[1].args)).toEqual({ table_name: "konzert" });
    // The SDK's own text for a tool that threw: an error step (the model never saw the cause).
    expect(JSON.parse(steps[4].result!)).toMatch(/^An error occurred while running the tool/); // results are JSON
    expect(steps[4].error).toBeTruthy();
    expect(steps[5].result).toMatch(/0 rows|no rows/i);

    const { counts } = await evaluateRun(store.sql, t.run_id as string);
    expect(counts).toMatchObject({ correct: 1 });
  });

  it("the SDK's own tracing exporter pointed at Metron is refused with what to do, not taken and dropped", async () => {
    // Capture what OpenAITracingExporter sends, as a Metron at that address would receive it.
    let body: unknown;
    const capture = http.createServer((req, res) => {
      let text = "";
      req.on("data", (d) => (text += d));
      req.on("end", () => {
        body = JSON.parse(text);
        res.writeHead(400).end();
      });
    });
    await new Promise<void>((r) => capture.listen(0, "127.0.0.1", r));
    const endpoint = `http://127.0.0.1:${(capture.address() as { port: number }).port}/v1/traces`;
    try {
      setTracingDisabled(false);
      setTraceProcessors([
        new BatchTraceProcessor(new OpenAITracingExporter({ apiKey: "sk-fake", endpoint, maxRetries: 1 })),
      ]);
      // The fake model answers past its script with its last reply (a text).
      await run(new Agent({ name: "sql-agent", instructions: "Answer.", model: "fake-sql" }), "Wie viele?");
      await getGlobalTraceProvider().forceFlush();
      for (let i = 0; i < 50 && body === undefined; i++) await new Promise((r) => setTimeout(r, 100));
      expect(body).toMatchObject({ data: expect.any(Array) });
      expect(notAnExport(body)).toMatch(/OpenAI Agents SDK's own tracing payload.*OpenInference/);
    } finally {
      setTracingDisabled(true);
      capture.close();
    }
  });
});

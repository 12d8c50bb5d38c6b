/**
 * OTLP as SDKs write it (issue 29): spans the AI SDK itself emits against a scripted fake model, exported with the
 * official JSON serializer, and the attribute forms other SDKs use for the same facts.
 */
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { generateText, stepCountIs, tool } from "ai";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { registerContextManager } from "@/lib/otel/emit";
import { startFakeOpenAI, type FakeServer } from "@/lib/testing/fake-openai";
import { ingestAdapted } from "@/lib/ingest/ingest-auto";
import { useEngineStore } from "@/lib/testing/engines";
import { adapt } from "./index";
import { unwrapToolResult } from "./types";
import { many, raw } from "@/lib/db/typed";

let fake: FakeServer | undefined;
afterAll(() => fake?.close());

/** A real AI SDK agent's spans as an OTLP/JSON export: two model calls, one tool whose result is an MCP result. */
async function aiSdkExport(toolResult: unknown): Promise<string> {
  fake = await startFakeOpenAI([
    {
      toolCalls: [{ name: "read_query", args: { query: "SELECT * FROM konzert WHERE 0" } }],
      usage: { prompt: 1500, completion: 12, cached: 1000 },
    },
    { text: "SELECT count(*) FROM konzert", usage: { prompt: 2500, completion: 20, cached: 2000 } },
  ]);
  registerContextManager();
  const memory = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: memory })] });
  await generateText({
    model: createOpenAICompatible({ name: "fake", baseURL: fake.url, apiKey: "sk-fake", includeUsage: true }).chatModel(
      "fake-sql",
    ),
    prompt: "Wie viele Konzerte gibt es?",
    tools: {
      read_query: tool({
        description: "Run a query",
        inputSchema: z.object({ query: z.string() }),
        execute: async () => toolResult,
      }),
    },
    stopWhen: stepCountIs(4),
    experimental_telemetry: { isEnabled: true, tracer: provider.getTracer("ai") },
  });
  await provider.forceFlush();
  await fake.close();
  fake = undefined;
  return Buffer.from(JsonTraceSerializer.serializeRequest(memory.getFinishedSpans())!).toString("utf8");
}

describe("OTLP from the AI SDK's own spans", () => {
  it("reads the cached input tokens the SDK reports, and unwraps an MCP tool result to its text", async () => {
    const text = await aiSdkExport({ content: [{ type: "text", text: "(0 rows)" }], isError: false });
    const { traces } = adapt(text, "otlp");
    expect(traces).toHaveLength(1);
    const usage = traces[0].steps.filter((s) => s.usage).map((s) => s.usage);
    expect(usage).toEqual([
      { input_tokens: 1500, output_tokens: 12, cached_input_tokens: 1000 },
      { input_tokens: 2500, output_tokens: 20, cached_input_tokens: 2000 },
    ]);
    const call = traces[0].steps.find((s) => s.type === "tool_call")!;
    expect(call).toMatchObject({ tool: "read_query", result: "(0 rows)" });
    expect(call.error).toBeUndefined();
  });

  it("keeps an MCP result's isError as the step's error", async () => {
    const text = await aiSdkExport({ content: [{ type: "text", text: "no such table: konzerte" }], isError: true });
    const call = adapt(text, "otlp").traces[0].steps.find((s) => s.type === "tool_call")!;
    expect(call).toMatchObject({ result: "no such table: konzerte", error: "no such table: konzerte" });
  });
});

describe("the other SDKs' forms of the same facts", () => {
  it("reads cached tokens in the GenAI, OpenLLMetry and OpenInference conventions", () => {
    const one = (attrs: Record<string, number>) =>
      JSON.stringify({
        resourceSpans: [
          {
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: "a".repeat(32),
                    spanId: "1".repeat(16),
                    name: "chat fake",
                    startTimeUnixNano: "1",
                    endTimeUnixNano: "2",
                    attributes: [
                      { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
                      ...Object.entries(attrs).map(([key, v]) => ({ key, value: { intValue: String(v) } })),
                    ],
                  },
                ],
              },
            ],
          },
        ],
      });
    for (const [input, cached] of [
      ["gen_ai.usage.input_tokens", "gen_ai.usage.cache_read.input_tokens"],
      ["gen_ai.usage.input_tokens", "gen_ai.usage.cache_read_input_tokens"],
      ["llm.token_count.prompt", "llm.token_count.prompt_details.cache_read"],
    ]) {
      const [t] = adapt(one({ [input]: 4000, [cached]: 3000, "gen_ai.usage.output_tokens": 5 }), "otlp").traces;
      expect(t.steps.find((s) => s.usage)?.usage, cached).toMatchObject({
        input_tokens: 4000,
        cached_input_tokens: 3000,
      });
    }
  });

  it("unwraps MCP results and content-block lists, leaving other results as they are", () => {
    expect(
      unwrapToolResult('{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}],"isError":true}'),
    ).toEqual({
      result: "a\nb",
      isError: true,
    });
    expect(unwrapToolResult([{ type: "input_text", text: "Wall time: 0.1 s\n(0 rows)" }])).toEqual({
      result: "Wall time: 0.1 s\n(0 rows)",
      isError: false,
    });
    expect(unwrapToolResult("konzert\nstadion")).toEqual({ result: "konzert\nstadion", isError: false });
    expect(unwrapToolResult('[{"id": 1}]')).toEqual({ result: '[{"id": 1}]', isError: false });
  });
});

describe("identity and question text from the frameworks' own attributes", () => {
  const exportOf = (spans: { name: string; parent?: string; attrs: Record<string, string> }[]) =>
    JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: spans.map((s, i) => ({
                traceId: "b".repeat(32),
                spanId: String(i + 1).padStart(16, "0"),
                ...(s.parent ? { parentSpanId: s.parent.padStart(16, "0") } : {}),
                name: s.name,
                startTimeUnixNano: String(i + 1),
                endTimeUnixNano: String(i + 2),
                attributes: Object.entries(s.attrs).map(([key, v]) => ({ key, value: { stringValue: v } })),
              })),
            },
          ],
        },
      ],
    });

  it("reads OpenLLMetry's association properties as metron.* (run, system, benchmark, question id)", () => {
    const [t] = adapt(
      exportOf([
        {
          name: "sql_agent.workflow",
          attrs: {
            "traceloop.association.properties.metron.run.name": "openllmetry run",
            "traceloop.association.properties.metron.run.system": "Traceloop agent",
            "traceloop.association.properties.metron.question.id": "22",
          },
        },
      ]),
      "otlp",
    ).traces;
    expect(t.run).toMatchObject({ name: "openllmetry run", system: "Traceloop agent" });
    expect(t.question.id).toBe("22");
  });

  it("takes the question from Mastra's agent-run input and OpenInference's agent input when model calls carry none", () => {
    const mastra = adapt(
      exportOf([
        {
          name: "agent run: 'sql'",
          attrs: { "mastra.agent_run.input": JSON.stringify([{ role: "user", content: "Wie viele Sänger?" }]) },
        },
        { name: "chat fake", parent: "1", attrs: { "gen_ai.operation.name": "chat" } },
      ]),
      "otlp",
    ).traces[0];
    expect(mastra.question.text).toBe("Wie viele Sänger?");
    const oi = adapt(
      exportOf([
        { name: "Agent", attrs: { "openinference.span.kind": "AGENT", "input.value": "Zeige alle Stadien." } },
      ]),
      "otlp",
    ).traces[0];
    expect(oi.question.text).toBe("Zeige alle Stadien.");
  });
});

describe("OpenLLMetry's MCP instrumentation: a workflow's calls in the MCP client's own OTel trace (issue 29)", () => {
  it("join the workflow's trace (same process, workflow and association properties, inside its time); the client's own spans are not a trace", () => {
    const tie = {
      "traceloop.workflow.name": "sql-agent",
      "traceloop.association.properties.metron.run.name": "openllmetry",
    };
    const span = (
      trace: string,
      id: string,
      parent: string | null,
      name: string,
      from: number,
      to: number,
      attrs: Record<string, string>,
    ) => ({
      traceId: trace.repeat(32),
      spanId: id.padStart(16, "0"),
      ...(parent ? { parentSpanId: parent.padStart(16, "0") } : {}),
      name,
      startTimeUnixNano: String(from * 1e6),
      endTimeUnixNano: String(to * 1e6),
      attributes: Object.entries(attrs).map(([key, v]) => ({ key, value: { stringValue: v } })),
      ...(name === "read_query.tool" ? { status: { code: 2, message: "Error: no such table: konzerte" } } : {}),
    });
    const doc = JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "agent" } }] },
          scopeSpans: [
            {
              spans: [
                span("a", "1", null, "sql-agent.workflow", 100, 200, { ...tie, "traceloop.span.kind": "workflow" }),
                span("a", "2", "1", "chat fake-sql", 101, 110, {
                  ...tie,
                  "gen_ai.operation.name": "chat",
                  "gen_ai.input.messages": JSON.stringify([
                    { role: "user", parts: [{ type: "text", content: "Wie viele Konzerte?" }] },
                  ]),
                }),
                span("c", "7", null, "mcp.client.session", 50, 300, { "traceloop.span.kind": "session" }),
                span("c", "8", "7", "initialize.mcp", 50, 60, {}),
                span("c", "9", "7", "read_query.tool", 120, 130, {
                  ...tie,
                  "traceloop.span.kind": "tool",
                  "traceloop.entity.name": "read_query",
                  "traceloop.entity.input": JSON.stringify({
                    tool_name: "read_query",
                    arguments: { query: "SELECT * FROM konzerte" },
                  }),
                  "traceloop.entity.output": JSON.stringify({
                    result: "Error: no such table: konzerte",
                    is_error: true,
                  }),
                }),
                // Another session of the same workflow, later: not this one's.
                span("c", "a", "7", "list_tables.tool", 250, 260, { ...tie, "traceloop.span.kind": "tool" }),
              ],
            },
          ],
        },
      ],
    });
    const { traces, warnings } = adapt(doc, "otlp");
    expect(traces).toHaveLength(2);
    const session = traces.find((t) => t.question.text === "Wie viele Konzerte?")!;
    const call = session.steps.find((s) => s.type === "tool_call")!;
    expect(call).toMatchObject({ tool: "read_query", args: { query: "SELECT * FROM konzerte" } });
    expect(call.error).toMatch(/no such table/);
    // The MCP client's trace keeps only the later call; its connect span alone would not have been a trace.
    expect(traces.find((t) => t !== session)!.steps.map((s) => s.tool)).toEqual(["list_tables"]);
    expect(warnings).toEqual([]);
  });
});

describe("traces without question text", () => {
  const store = useEngineStore("SQLite");
  it("get question ids of their own, not one shared id", async () => {
    const trace = (session: string) => ({
      question: {},
      steps: [{ type: "tool_call" as const, tool: "list_tables", args: {}, result: "konzert" }],
      meta: { session_id: session },
    });
    const report = await ingestAdapted(store.sql, [trace("s1"), trace("s2"), trace("s3")], {
      defaults: { name: "no text", system: "x", model: "m" },
    });
    expect(report.inserted).toBe(3);
    const ids = await many(store.sql, raw<{ q: string }>`SELECT DISTINCT question_id AS q FROM traces`);
    expect(ids).toHaveLength(3);
    expect(ids.every((r) => r.q.startsWith("unlinked-"))).toBe(true);
  });
});

/**
 * The AI SDK (`ai`, `@ai-sdk/openai`, pinned) with `@ai-sdk/mcp`'s stdio client on `metron mcp` as its tools,
 * `generateText` against the fake model's Chat Completions, its telemetry (`experimental_telemetry`) exported over
 * OTLP to a running Metron (`next start` on the store): once with the OpenTelemetry OTLP/protobuf exporter, once with
 * `@langfuse/otel`'s span processor pointed at Metron (it posts OTLP/JSON-over-protobuf to Langfuse's path,
 * `/api/public/otel/v1/traces`, with basic auth).
 *
 * What the AI SDK really writes (seen here): a root `ai.generateText` span, one `ai.generateText.doGenerate` per
 * model call with `ai.usage.*` (cached as `ai.usage.cachedInputTokens`), and one `ai.toolCall` per call whose
 * `ai.toolCall.result` is the MCP `CallToolResult` (`{content: [...], isError}`) as JSON.
 */
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { createOpenAI } from "@ai-sdk/openai";
import { LangfuseSpanProcessor } from "@langfuse/otel";
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor, type SpanProcessor } from "@opentelemetry/sdk-trace-base";
import { generateText, stepCountIs } from "ai";
import { describe, expect, it } from "vitest";
import { type FakeLlm } from "@/lib/testing/fake-llm";
import { expectScriptedTrace, metronMcp, useHarness, waitForTraces, type HarnessStore } from "./common";

// As NodeSDK and NodeTracerProvider.register() do: without a context manager, every span is a root of its own.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());

const QUESTION = "Zeige den Stadionnamen und die Anzahl der Konzerte in jedem Stadion.";

/** One agent session of the AI SDK with Metron's MCP tools, its spans through `processor`. */
async function session(store: HarnessStore, fake: FakeLlm, run: string, processor: SpanProcessor) {
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      "service.name": "ai-sdk-agent",
      "metron.run.name": run,
      "metron.run.system": "AI SDK + MCP",
      "metron.run.benchmark": "spider-de",
    }),
    spanProcessors: [processor],
  });
  const [command, ...args] = metronMcp({ variant: "oracle" });
  const mcp = await createMCPClient({
    transport: new Experimental_StdioMCPTransport({
      command,
      args,
      env: { PATH: process.env.PATH ?? "", DATABASE_PATH: store.env.DATABASE_PATH },
    }),
  });
  try {
    const openai = createOpenAI({ baseURL: fake.url, apiKey: "sk-fake" });
    const result = await generateText({
      model: openai.chat("fake-sql"),
      system: "Answer with one SQLite query, submitted with submit_final_query.",
      prompt: QUESTION,
      tools: await mcp.tools(),
      stopWhen: stepCountIs(12),
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer("ai") },
    });
    expect(result.text).toBe("Done: the query is submitted.");
  } finally {
    await mcp.close();
  }
  await provider.forceFlush();
  await provider.shutdown();
}

describe("the AI SDK 6 with @ai-sdk/mcp, over OTLP to a running Metron", () => {
  const h = useHarness({ metron: true });

  it("the OTLP/protobuf exporter: one trace with every MCP result unwrapped, isError kept, cached tokens, EX", async () => {
    const before = h.fake.loopRequests().length;
    await session(
      h.store,
      h.fake,
      "ai sdk otlp",
      new BatchSpanProcessor(new OTLPTraceExporter({ url: `${h.metron.url}/v1/traces` })),
    );
    await waitForTraces(h.store.sql, "ai sdk otlp");
    const { calls } = await expectScriptedTrace(h.store.sql, "ai sdk otlp", {
      modelCalls: h.fake.loopRequests().length - before,
      model: "fake-sql",
    });
    expect(calls.every((c) => !/"content":\[/.test(c.result ?? ""))).toBe(true); // text, not the CallToolResult
  });

  it("@langfuse/otel's span processor pointed at Metron: the same trace", async () => {
    const before = h.fake.loopRequests().length;
    await session(
      h.store,
      h.fake,
      "ai sdk langfuse",
      new LangfuseSpanProcessor({ baseUrl: h.metron.url, publicKey: "pk-lf-metron", secretKey: "sk-lf-metron" }),
    );
    await waitForTraces(h.store.sql, "ai sdk langfuse");
    await expectScriptedTrace(h.store.sql, "ai sdk langfuse", {
      modelCalls: h.fake.loopRequests().length - before,
      model: "fake-sql",
    });
  });
});

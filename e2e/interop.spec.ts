import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from "@opentelemetry/sdk-trace";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { ExportResultCode } from "@opentelemetry/core";
import { generateText, stepCountIs, tool } from "ai";
import { readFileSync } from "node:fs";
import path from "node:path";
import { z } from "zod";
import { expect, test, type Page } from "@playwright/test";
import { registerContextManager } from "../lib/otel/emit";
import { startFakeOpenAI } from "../lib/testing/fake-openai";
import { expectAccessible } from "./accessible";

const fixtures = path.resolve(import.meta.dirname, "..", "lib", "trace", "adapters", "fixtures");

function send(exporter: ProtoExporter | JsonExporter, spans: ReadableSpan[]): Promise<void> {
  return new Promise((resolve, reject) =>
    exporter.export(spans, (r) => (r.code === ExportResultCode.SUCCESS ? resolve() : reject(r.error))),
  );
}

async function runTraces(page: Page, name: string): Promise<string> {
  await page.goto("/");
  const row = page.getByTestId("runs-table").locator("tr", { hasText: name });
  await expect(row).toBeVisible();
  return (await row.locator("td").nth(3).innerText()).trim();
}

test("an OpenTelemetry exporter (protobuf, then JSON) sends an AI SDK agent's spans to /v1/traces", async ({
  page,
  baseURL,
}) => {
  // A scripted model: list the tables, describe one, submit.
  const fake = await startFakeOpenAI([
    { toolCalls: [{ name: "list_tables", args: {} }], usage: { prompt: 210, completion: 9 } },
    {
      toolCalls: [{ name: "describe_table", args: { table_name: "konzert" } }],
      usage: { prompt: 420, completion: 15 },
    },
    { text: "SELECT count(*) FROM konzert", usage: { prompt: 630, completion: 12 } },
  ]);
  try {
    registerContextManager();
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({
      resource: resourceFromAttributes({
        "service.name": "otel-e2e",
        "metron.run.name": "otel e2e",
        "metron.run.system": "AI SDK agent",
        "metron.run.benchmark": "spider-de",
        "metron.question.id": "23",
      }),
      spanProcessors: [new SimpleSpanProcessor({ exporter: memory })],
    });
    const model = createOpenAICompatible({ name: "fake", baseURL: fake.url, apiKey: "sk-fake" }).chatModel("fake-sql");
    await generateText({
      model,
      prompt: "Wie viele Konzerte finden in jedem Stadion statt?",
      tools: {
        list_tables: tool({
          description: "List the tables",
          inputSchema: z.object({}),
          execute: async () => "konzert\nstadion\nsänger",
        }),
        describe_table: tool({
          description: "Describe a table",
          inputSchema: z.object({ table_name: z.string() }),
          execute: async ({ table_name }) => `CREATE TABLE ${table_name} (konzert_id int, stadion_id int)`,
        }),
      },
      stopWhen: stepCountIs(5),
      experimental_telemetry: { isEnabled: true, tracer: provider.getTracer("e2e") },
    });
    await provider.forceFlush();
    const spans = memory.getFinishedSpans();
    expect(spans.length).toBeGreaterThan(4);

    const url = `${baseURL}/v1/traces`;
    await send(new ProtoExporter({ url }), spans);
    expect(await runTraces(page, "otel e2e")).toBe("1");
    // The same spans again, as JSON (an exporter's retry, another protocol): nothing new is stored.
    await send(new JsonExporter({ url }), spans);
    await send(new ProtoExporter({ url }), spans);
    expect(await runTraces(page, "otel e2e")).toBe("1");

    await page.getByTestId("runs-table").getByRole("link", { name: "otel e2e" }).click();
    await expect(page.getByText("model fake-sql")).toBeVisible();
    await page.getByTestId("traces-table").locator("tbody tr").first().getByRole("link").first().click();
    const timeline = page.getByTestId("timeline");
    await expect(timeline).toContainText("list_tables");
    await expect(timeline).toContainText("describe_table");
    await expect(timeline).toContainText("konzert");
    await expect(page.getByText("1,260 / 36")).toBeVisible(); // tokens of the three calls, in / out
    await expectAccessible(page);
  } finally {
    await fake.close();
  }
});

test("an Inspect .eval, an ATIF trajectory and an OTLP/JSON export are detected and stored from the upload page", async ({
  page,
}) => {
  await page.goto("/");
  // Inspect: the model is in the log, the system is not.
  await page.getByTestId("upload-input").setInputFiles(path.join(fixtures, "inspect-sql.eval"));
  const review = page.getByTestId("upload-review");
  await expect(review).toContainText("inspect");
  await review.getByLabel("System (variant)").fill("Inspect ReAct");
  await review.getByRole("button", { name: "Store" }).click();
  const report = page.getByTestId("upload-report");
  await expect(report.getByTestId("upload-format")).toHaveText("inspect");
  await expect(report).toContainText("3 traces stored");

  // ATIF: system and model are in the trajectory, its tools are known: stored without a question.
  await page.goto("/");
  // (Named so that its run, named after the file, sorts among the others: upload.spec.ts checks the ends.)
  await page.getByTestId("upload-input").setInputFiles({
    name: "interop-atif.json",
    mimeType: "application/json",
    buffer: readFileSync(path.join(fixtures, "atif-sql.json")),
  });
  await expect(page.getByTestId("upload-report").getByTestId("upload-format")).toHaveText("atif");
  await expect(page.getByTestId("upload-report")).toContainText("1 trace stored");
  await expect(page.getByTestId("upload-report")).toContainText("sql-react · claude-sonnet-4-5");

  // An OTLP/JSON export (an exporter's file output).
  const otlp = {
    resourceSpans: [
      {
        resource: {
          attributes: [
            { key: "service.name", value: { stringValue: "otlp file e2e" } },
            { key: "metron.run.system", value: { stringValue: "GenAI agent" } },
            { key: "metron.run.model", value: { stringValue: "gpt-otlp" } },
          ],
        },
        scopeSpans: [
          {
            spans: [
              {
                traceId: "7".repeat(32),
                spanId: "1".repeat(16),
                name: "execute_tool list_tables",
                startTimeUnixNano: "1700000000000000000",
                endTimeUnixNano: "1700000000250000000",
                attributes: [
                  { key: "gen_ai.operation.name", value: { stringValue: "execute_tool" } },
                  { key: "gen_ai.tool.name", value: { stringValue: "list_tables" } },
                ],
              },
            ],
          },
        ],
      },
    ],
  };
  await page.goto("/");
  await page.getByTestId("upload-input").setInputFiles({
    name: "spans.json",
    mimeType: "application/json",
    buffer: Buffer.from(JSON.stringify(otlp)),
  });
  await expect(page.getByTestId("upload-report").getByTestId("upload-format")).toHaveText("otlp");
  await expect(page.getByTestId("upload-report")).toContainText("1 trace stored");
  // Its question page: a span of 250 ms reads so, and with no final SQL there is nothing to run, said before a click.
  await page.getByTestId("upload-report").getByRole("link").first().click();
  await page.getByTestId("traces-table").locator("tbody tr").first().getByRole("link").first().click();
  await expect(page.getByText("Duration", { exact: true }).locator("..")).toContainText("250 ms");
  await expect(page.getByRole("button", { name: "Run both queries and compare their results" })).toBeDisabled();
  await expect(page.getByText("Nothing to run: the trace has no final SQL.")).toBeVisible();
});

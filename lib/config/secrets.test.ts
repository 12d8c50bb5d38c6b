import { readFileSync } from "node:fs";
import { Readable } from "node:stream";
import { SpanStatusCode } from "@opentelemetry/api";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sharedHandle } from "@/lib/db/sql";
import { ingestAuto } from "@/lib/ingest/ingest-auto";
import { scrubbingExporter } from "@/lib/otel/emit";
import { assembleGroups } from "@/lib/otel/assemble";
import { receiveSpans } from "@/lib/otel/receiver";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { sharedData } from "@/lib/testing/shared-data";
import { scrubSecrets } from "./secrets";
import { many, raw } from "@/lib/db/typed";

const KEY = "sk-live-ECHOED0123456789abcdefSECRET/+=";

describe("one scrubber for what leaves and what enters (issue 28)", () => {
  beforeAll(() => {
    process.env.METRON_OPENAI_KEY = KEY;
  });
  afterAll(() => {
    delete process.env.METRON_OPENAI_KEY;
  });

  it("finds a configured key as it is, URL-encoded, escaped in JSON, in base64 and cut short", () => {
    for (const form of [
      KEY,
      encodeURIComponent(KEY),
      JSON.stringify(KEY).slice(1, -1),
      Buffer.from(KEY).toString("base64"),
      `${KEY.slice(0, 20)}…`,
      `x-api-key=${KEY}&other=1`,
    ]) {
      const out = scrubSecrets(`the provider said: ${form} (end)`);
      expect(out, form).toContain("[redacted]");
      expect(out, form).not.toContain(KEY.slice(0, 16));
      expect(out).toMatch(/^the provider said: .*\(end\)$/);
    }
    expect(scrubSecrets("SELECT count(*) FROM konzert")).toBe("SELECT count(*) FROM konzert");
  });

  it("exports spans whose attributes, events, status and exceptions held the key with no trace of it", async () => {
    const memory = new InMemorySpanExporter();
    const provider = new TracerProvider({
      spanProcessors: [new SimpleSpanProcessor({ exporter: scrubbingExporter(memory) })],
    });
    const tracer = provider.getTracer("t");
    const span = tracer.startSpan("ai.generateText", {
      attributes: { "ai.response.text": `echo ${KEY}`, "ai.toolCall.args": JSON.stringify({ key: KEY }) },
    });
    span.recordException(new Error(`401 Incorrect API key provided: ${KEY}`));
    span.setStatus({ code: SpanStatusCode.ERROR, message: `Authorization: Bearer ${KEY}` });
    span.end();
    await provider.forceFlush();
    const exported = JSON.stringify(memory.getFinishedSpans().map((s) => [s.name, s.attributes, s.events, s.status]));
    expect(exported).toContain("[redacted]");
    expect(exported).not.toContain(KEY.slice(0, 16));
    // The serialized export request (what goes on the wire) too.
    const wire = Buffer.from(JsonTraceSerializer.serializeRequest(memory.getFinishedSpans())!).toString();
    expect(wire).toContain("Incorrect API key provided");
    expect(wire).not.toContain(KEY.slice(0, 16));
  });

  describe.each(ENGINES)("what enters the %s store", (engine) => {
    const store = useEngineStore(engine);
    const everything = async () =>
      (
        await Promise.all(
          ["traces", "steps", "blobs", "otlp_spans", "runs", "upload_errors"].map((t) =>
            many<Record<string, unknown>>(store.sql, raw`SELECT * FROM ${raw.id(t)}`),
          ),
        )
      )
        .flat()
        .map((r) => Object.values(r).join("\u0000"))
        .join("\n");

    it("an OTLP export that carries the key is stored, assembled and shown without it", async () => {
      const hex = (n: number, len: number) => n.toString(16).padStart(len, "0");
      const attr = (key: string, value: string) => ({ key, value: { stringValue: value } });
      const doc = {
        resourceSpans: [
          {
            resource: { attributes: [attr("service.name", "echo-agent"), attr("metron.run.name", "echo run")] },
            scopeSpans: [
              {
                spans: [
                  {
                    traceId: hex(7, 32),
                    spanId: hex(1, 16),
                    name: "agent",
                    startTimeUnixNano: "1000",
                    endTimeUnixNano: "9000",
                    attributes: [
                      attr("gen_ai.input.messages", JSON.stringify([{ role: "user", content: "Wie viele?" }])),
                    ],
                    status: { code: 2, message: `upstream said ${KEY}` },
                  },
                  {
                    traceId: hex(7, 32),
                    spanId: hex(2, 16),
                    parentSpanId: hex(1, 16),
                    name: "execute_tool read_query",
                    startTimeUnixNano: "2000",
                    endTimeUnixNano: "3000",
                    attributes: [
                      attr("gen_ai.tool.name", "read_query"),
                      attr("gen_ai.tool.call.arguments", JSON.stringify({ query: "SELECT 1" })),
                      attr("gen_ai.tool.call.result", `error: invalid key ${KEY}`),
                    ],
                  },
                ],
              },
            ],
          },
        ],
      };
      const r = await receiveSpans(store.sql, doc);
      await assembleGroups(store.sql, () => sharedHandle(store.sql), { groups: r.complete });
      const stored = await everything();
      expect(stored).toContain("[redacted]");
      expect(stored).not.toContain(KEY.slice(0, 16));
    });

    it("a real Claude Code session with the key pasted into it is stored without it", async () => {
      const text = readFileSync(sharedData("traces", "claude-code", "session_b.jsonl"), "utf8")
        .split("\n")
        .map((line, i) => (i === 1 ? line.replace(/"text":\s*"/, `"text": "my key is ${KEY} `) : line))
        .join("\n");
      expect(text).toContain(KEY);
      const report = await ingestAuto(store.sql, Readable.from([Buffer.from(text)]), { format: "claude-code" });
      expect(report.inserted).toBeGreaterThan(0);
      expect(await everything()).not.toContain(KEY.slice(0, 16));
    });
  });
});

/**
 * Metron speaks OpenTelemetry too: when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is
 * set, reruns and sweeps emit the AI SDK's spans (GenAI conventions: model calls with usage, tool calls with
 * arguments and results) with `metron.*` attributes naming the run and question, so a lab that runs Phoenix or
 * Langfuse sees Metron's runs there. The exporters read the standard OTEL_* variables (endpoint, headers,
 * `OTEL_EXPORTER_OTLP_PROTOCOL` http/protobuf or http/json); nothing is set up when no endpoint is.
 */
import { context, type Tracer } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider, type ReadableSpan, type SpanExporter } from "@opentelemetry/sdk-trace";
import type { Attributes } from "@opentelemetry/api";
import { scrubSecrets, scrubValue } from "@/lib/config/secrets";

let provider: TracerProvider | null = null;
let contextRegistered = false;

export function otelEndpoint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
}

/**
 * Span context that follows async calls, so a model call's and a tool call's spans are children of the loop's span
 * (one OTel trace per question) instead of roots of their own. Registered once; an application's own is kept.
 */
export function registerContextManager(): void {
  if (contextRegistered) return; // one, for the process: each enabled one is walked on every await (issue 35)
  const manager = new AsyncLocalStorageContextManager();
  if (context.setGlobalContextManager(manager.enable())) contextRegistered = true;
  else manager.disable(); // an application's own is kept
}

/** A span as exported: the same span with its attributes, events and status scrubbed of every secret. */
function scrubbedSpan(span: ReadableSpan): ReadableSpan {
  const attributes = scrubValue(span.attributes) as Attributes;
  const events = span.events.map((e) => ({ ...e, ...(e.attributes ? { attributes: scrubValue(e.attributes) } : {}) }));
  const status = { ...span.status, ...(span.status.message ? { message: scrubSecrets(span.status.message) } : {}) };
  const name = scrubSecrets(span.name);
  return new Proxy(span, {
    get(target, property) {
      if (property === "attributes") return attributes;
      if (property === "events") return events;
      if (property === "status") return status;
      if (property === "name") return name;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/**
 * An exporter that sends every span scrubbed (issue 28): a provider's error that echoes its key lands in
 * `exception.message`, stack traces, `status.message`, response text and tool arguments.
 */
export function scrubbingExporter(exporter: SpanExporter): SpanExporter {
  return {
    export: (spans, done) => exporter.export(spans.map(scrubbedSpan), done),
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush?.() ?? Promise.resolve(),
  };
}

/** The tracer reruns and sweeps emit spans with, or undefined when no OTLP endpoint is configured. */
export function agentTracer(): Tracer | undefined {
  if (!otelEndpoint()) return undefined;
  if (!provider) {
    registerContextManager();
    const protocol = process.env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? process.env.OTEL_EXPORTER_OTLP_PROTOCOL;
    const exporter = protocol === "http/json" ? new JsonExporter() : new ProtoExporter();
    provider = new TracerProvider({
      resource: resourceFromAttributes({ "service.name": process.env.OTEL_SERVICE_NAME || "metron" }),
      spanProcessors: [new BatchSpanProcessor({ exporter: scrubbingExporter(exporter) })],
    });
  }
  return provider.getTracer("metron-agent");
}

/** Sends the spans still buffered (before a process exits). */
export async function flushAgentSpans(): Promise<void> {
  await provider?.forceFlush();
}

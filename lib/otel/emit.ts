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
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";

let provider: TracerProvider | null = null;

export function otelEndpoint(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
}

/**
 * Span context that follows async calls, so a model call's and a tool call's spans are children of the loop's span
 * (one OTel trace per question) instead of roots of their own. Registered once; an application's own is kept.
 */
export function registerContextManager(): void {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
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
      spanProcessors: [new BatchSpanProcessor({ exporter })],
    });
  }
  return provider.getTracer("metron-agent");
}

/** Sends the spans still buffered (before a process exits). */
export async function flushAgentSpans(): Promise<void> {
  await provider?.forceFlush();
}

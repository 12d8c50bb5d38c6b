import { notAnExport } from "@/lib/otel/decode";

/**
 * Where the OpenAI Agents SDK's own `OpenAITracingExporter` posts when given Metron's base URL (`<base>/traces/ingest`):
 * its payload is not OpenTelemetry, so it is refused with what to do instead (issue 29).
 */
export async function POST(request: Request) {
  const body = (await request.json().catch(() => null)) as unknown;
  return Response.json({ error: notAnExport(body) ?? "send OTLP exports to /v1/traces" }, { status: 400 });
}

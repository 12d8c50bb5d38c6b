import type { NextRequest } from "next/server";
import { gate } from "@/lib/auth/gate";
import { receiveOtlpRequest } from "@/lib/otel/http";

/**
 * The standard OTLP/HTTP trace endpoint: an OpenTelemetry exporter given Metron's base URL (`OTEL_EXPORTER_OTLP_ENDPOINT
 * =http://host:3000`) posts here (lib/otel/http.ts). Outside the proxy (a proxy would buffer the body and cut it at
 * 10 MB): access is checked here.
 */
export async function POST(request: NextRequest) {
  const checked = gate(request);
  if (!checked.ok) return checked.response;
  return receiveOtlpRequest(request);
}

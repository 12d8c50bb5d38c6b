import type { NextRequest } from "next/server";
import { gate } from "@/lib/auth/gate";
import { storeOpener } from "@/lib/db/store";
import { receiveOtlpRequest } from "@/lib/otel/http";
import { otlpQuietMs } from "@/lib/otel/stored-spans";
import { viewsAfterStream } from "@/lib/views/ahead";

/**
 * The standard OTLP/HTTP trace endpoint: an OpenTelemetry exporter given Metron's base URL (`OTEL_EXPORTER_OTLP_ENDPOINT
 * =http://host:3000`) posts here (lib/otel/http.ts). Outside the proxy (a proxy would buffer the body and cut it at
 * 10 MB): access is checked here.
 */
export async function POST(request: NextRequest) {
  const checked = gate(request);
  if (!checked.ok) return checked.response;
  // The traces' runs' views, computed once the harness stops sending (lib/views/ahead.ts).
  return receiveOtlpRequest(request, viewsAfterStream(storeOpener(), otlpQuietMs()));
}

import type { NextRequest } from "next/server";
import { gate } from "@/lib/auth/gate";
import { storeOpener } from "@/lib/db/store";
import { receiveOtlpRequest } from "@/lib/otel/http";
import { otlpQuietMs } from "@/lib/otel/stored-spans";
import { viewsAfterStream } from "@/lib/views/ahead";

/**
 * Langfuse's OTLP path: `@langfuse/otel`'s span processor given Metron as its `baseUrl` posts here, with its keys as
 * Basic auth (with an access token configured, the token is the secret key). The same receiver as /v1/traces.
 */
export async function POST(request: NextRequest) {
  const checked = gate(request);
  if (!checked.ok) return checked.response;
  // The traces' runs' views, computed once the harness stops sending (lib/views/ahead.ts).
  return receiveOtlpRequest(request, viewsAfterStream(storeOpener(), otlpQuietMs()));
}

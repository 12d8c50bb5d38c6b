/**
 * The network boundary (Next 16's proxy, Node.js runtime): every request passes here first and meets the access
 * rules of lib/auth/gate.ts. The principal's name travels to the routes in `x-metron-principal`. The routes that
 * receive large bodies (uploads, OTLP exports) are left out and run the same rules themselves: with a proxy in
 * front, Next buffers the body in memory and passes on only its first 10 MB.
 */
import { NextResponse, type NextRequest } from "next/server";
import { gate } from "@/lib/auth/gate";

export function proxy(request: NextRequest) {
  const checked = gate(request);
  if (!checked.ok) return checked.response;
  const headers = new Headers(request.headers);
  headers.delete("x-metron-principal");
  if (checked.principal) headers.set("x-metron-principal", checked.principal);
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // Everything but Next's own static assets and the large-body routes (LARGE_BODY_ROUTES in lib/auth/gate.ts,
  // which must be literal here).
  matcher: [
    "/((?!_next/static|_next/image|api/ingest$|api/v1/ingest$|api/datasets/files$|v1/traces$|api/public/otel/v1/traces$).*)",
  ],
};

/**
 * The access rules every request passes (a Host Metron knows: hosts.ts) (proxy.ts runs them for all paths but the large-body routes, which run them
 * themselves: a proxy makes Next buffer a request body in memory and cut it at 10 MB). Cross-origin mutating
 * requests get 403; with access tokens configured (tokens.ts), a request without a valid token gets 401 — pages a
 * sign-in form, everything else JSON — and a read token on a mutating route 403.
 */
import { NextResponse, type NextRequest } from "next/server";
import { hostRefusal } from "./hosts";
import { crossOriginRefusal, MUTATING, ownOriginOf } from "./origin";
import { signInPage } from "./sign-in-page";
import { authEnabled, principalOf, SESSION_COOKIE } from "./tokens";

const OPEN_PATHS = ["/api/auth/signin", "/api/auth/signout"];

/** Routes that receive large bodies and check access themselves (`gate`), outside the proxy. */
export const LARGE_BODY_ROUTES = [
  "/api/ingest",
  "/api/v1/ingest",
  "/api/datasets/files",
  "/v1/traces",
  "/api/public/otel/v1/traces",
];

export type Gate = { ok: true; principal: string | null } | { ok: false; response: NextResponse };

export function gate(request: NextRequest): Gate {
  const { pathname, search } = request.nextUrl;
  const misdirected = hostRefusal(request.headers.get("host"));
  if (misdirected) return { ok: false, response: NextResponse.json({ error: misdirected }, { status: 421 }) };
  const refusal = crossOriginRefusal(request.method, request.headers, ownOriginOf(request.url, request.headers));
  if (refusal) return { ok: false, response: NextResponse.json({ error: refusal }, { status: 403 }) };
  if (!authEnabled() || OPEN_PATHS.includes(pathname)) return { ok: true, principal: null };
  const principal = principalOf(request.headers, request.cookies.get(SESSION_COOKIE)?.value);
  if (!principal) {
    const api = pathname.startsWith("/api/") || pathname.startsWith("/v1/");
    if (api || request.method !== "GET")
      return {
        ok: false,
        response: NextResponse.json(
          { error: "authentication required: send Authorization: Bearer <token>, or sign in" },
          { status: 401, headers: { "WWW-Authenticate": 'Bearer realm="metron"' } },
        ),
      };
    return {
      ok: false,
      response: new NextResponse(signInPage(`${pathname}${search}`), {
        status: 401,
        headers: { "Content-Type": "text/html; charset=utf-8" },
      }),
    };
  }
  if (MUTATING.has(request.method) && principal.access !== "write") {
    return {
      ok: false,
      response: NextResponse.json(
        {
          error: `the token "${principal.name}" has read access: uploading, editing, evaluating and rerunning need a write token`,
        },
        { status: 403 },
      ),
    };
  }
  return { ok: true, principal: principal.name };
}

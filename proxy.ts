/**
 * The network boundary (Next 16's proxy, Node.js runtime): every request passes here first. It refuses
 * cross-origin mutating requests (403), and when access tokens are configured (lib/auth/tokens.ts) it answers 401
 * to a request without a valid token — pages with a sign-in form, everything else with JSON — and 403 to a read
 * token on a mutating route. The principal's name travels to the routes in `x-metron-principal`.
 */
import { NextResponse, type NextRequest } from "next/server";
import { crossOriginRefusal, MUTATING, ownOriginOf } from "@/lib/auth/origin";
import { signInPage } from "@/lib/auth/sign-in-page";
import { authEnabled, principalOf, SESSION_COOKIE } from "@/lib/auth/tokens";

const OPEN_PATHS = ["/api/auth/signin", "/api/auth/signout"];

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const refusal = crossOriginRefusal(request.method, request.headers, ownOriginOf(request.url, request.headers));
  if (refusal) return NextResponse.json({ error: refusal }, { status: 403 });
  const headers = new Headers(request.headers);
  headers.delete("x-metron-principal");
  if (authEnabled() && !OPEN_PATHS.includes(pathname)) {
    const principal = principalOf(request.headers, request.cookies.get(SESSION_COOKIE)?.value);
    if (!principal) {
      const api = pathname.startsWith("/api/") || pathname.startsWith("/v1/");
      if (api || request.method !== "GET")
        return NextResponse.json(
          { error: "authentication required: send Authorization: Bearer <token>, or sign in" },
          { status: 401, headers: { "WWW-Authenticate": 'Bearer realm="metron"' } },
        );
      return new NextResponse(signInPage(`${pathname}${search}`), {
        status: 401,
        headers: { "Content-Type": "text/html; charset=utf-8" },
      });
    }
    if (MUTATING.has(request.method) && principal.access !== "write") {
      return NextResponse.json(
        {
          error: `the token "${principal.name}" has read access: uploading, editing, evaluating and rerunning need a write token`,
        },
        { status: 403 },
      );
    }
    headers.set("x-metron-principal", principal.name);
  }
  return NextResponse.next({ request: { headers } });
}

export const config = {
  // Everything but Next's own static assets.
  matcher: ["/((?!_next/static|_next/image).*)"],
};

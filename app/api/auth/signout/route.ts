import { revokeSession } from "@/lib/auth/sessions";
import { SESSION_COOKIE, SESSION_SECONDS, sessionOf } from "@/lib/auth/tokens";
import type { NextRequest } from "next/server";

/** Signs out: the session is revoked on the server (a copy of the cookie stops working too) and the cookie cleared. */
export async function POST(request: NextRequest) {
  const session = sessionOf(request.cookies.get(SESSION_COOKIE)?.value);
  if (session) revokeSession(session.id, session.issuedAt + SESSION_SECONDS * 1000);
  return new Response(null, {
    status: 303,
    headers: { Location: "/", "Set-Cookie": `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0` },
  });
}

import { signInPage } from "@/lib/auth/sign-in-page";
import { clientOf } from "@/lib/auth/client";
import { recordSignInFailure, signInWait } from "@/lib/auth/sign-in-limit";
import { principalOfToken, SESSION_COOKIE, SESSION_SECONDS, sessionCookieValue } from "@/lib/auth/tokens";

/** Sign-in form: a valid token sets an HttpOnly, SameSite=Lax session cookie (Secure under HTTPS) and goes on. */
export async function POST(request: Request) {
  const client = clientOf(request.headers);
  const wait = signInWait(client);
  if (wait > 0)
    return new Response(
      signInPage(
        "/",
        `Too many failed sign-ins: try again in ${Math.ceil(wait / 1000)} s (METRON_SIGNIN_MAX_FAILURES).`,
      ),
      {
        status: 429,
        headers: { "Content-Type": "text/html; charset=utf-8", "Retry-After": String(Math.ceil(wait / 1000)) },
      },
    );
  const form = await request.formData().catch(() => null);
  const token = typeof form?.get("token") === "string" ? (form.get("token") as string) : "";
  const next = typeof form?.get("next") === "string" ? (form.get("next") as string) : "/";
  const target = next.startsWith("/") && !next.startsWith("//") ? next : "/";
  const principal = principalOfToken(token.trim());
  if (!principal) recordSignInFailure(client);
  if (!principal)
    return new Response(signInPage(target, "That token is not valid here."), {
      status: 401,
      headers: { "Content-Type": "text/html; charset=utf-8" },
    });
  const https =
    (request.headers.get("x-forwarded-proto") ?? new URL(request.url).protocol.replace(":", "")) === "https";
  const cookie = `${SESSION_COOKIE}=${sessionCookieValue(principal)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_SECONDS}${https ? "; Secure" : ""}`;
  return new Response(null, { status: 303, headers: { Location: target, "Set-Cookie": cookie } });
}

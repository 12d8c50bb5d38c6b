import { signInPage } from "@/lib/auth/sign-in-page";
import { principalOfToken, SESSION_COOKIE, sessionCookieValue } from "@/lib/auth/tokens";

const MONTH = 30 * 24 * 3600;

/** Sign-in form: a valid token sets an HttpOnly, SameSite=Lax session cookie (Secure under HTTPS) and goes on. */
export async function POST(request: Request) {
  const form = await request.formData().catch(() => null);
  const token = typeof form?.get("token") === "string" ? (form.get("token") as string) : "";
  const next = typeof form?.get("next") === "string" ? (form.get("next") as string) : "/";
  const target = next.startsWith("/") && !next.startsWith("//") ? next : "/";
  const principal = principalOfToken(token.trim());
  if (!principal)
    return new Response(signInPage(target, "That token is not valid here."), {
      status: 401,
      headers: { "Content-Type": "text/html; charset=utf-8" },
    });
  const https =
    (request.headers.get("x-forwarded-proto") ?? new URL(request.url).protocol.replace(":", "")) === "https";
  const cookie = `${SESSION_COOKIE}=${sessionCookieValue(principal)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${MONTH}${https ? "; Secure" : ""}`;
  return new Response(null, { status: 303, headers: { Location: target, "Set-Cookie": cookie } });
}

import { SESSION_COOKIE } from "@/lib/auth/tokens";

/** Signs out: the session cookie is cleared. */
export async function POST() {
  return new Response(null, {
    status: 303,
    headers: { Location: "/", "Set-Cookie": `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0` },
  });
}

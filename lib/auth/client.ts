/**
 * Who a request counts as for per-client limits (the rerun cap, sign-in attempts): the access token's name when there
 * is one; else the address a trusted proxy forwarded (`X-Forwarded-For`, only with METRON_TRUST_PROXY=1: a client
 * can write that header itself); else "local", one client for all. Pure.
 */
export function clientOf(headers: Headers, trustProxy = process.env.METRON_TRUST_PROXY === "1"): string {
  const principal = headers.get("x-metron-principal");
  if (principal) return principal;
  if (trustProxy) {
    const forwarded = headers.get("x-forwarded-for")?.split(",")[0].trim();
    if (forwarded) return forwarded;
  }
  return "local";
}

/**
 * Cross-origin protection for every mutating request (pure): a browser says where a request comes from
 * (`Sec-Fetch-Site`, `Origin`); anything but the server's own origin is refused, whatever the content type (a
 * cross-origin `text/plain` POST needs no preflight). A request without either header does not come from a page
 * (curl, the CLI, an OTel exporter) and is judged by its token alone.
 */
export const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

export function crossOriginRefusal(method: string, headers: Headers, ownOrigin: string): string | null {
  if (!MUTATING.has(method.toUpperCase())) return null;
  const site = headers.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none")
    return `cross-origin request refused (Sec-Fetch-Site: ${site})`;
  const origin = headers.get("origin");
  if (origin && origin !== "null" && origin !== ownOrigin) return `cross-origin request refused (Origin: ${origin})`;
  if (origin === "null") return "cross-origin request refused (Origin: null)";
  return null;
}

/** The origin a request was addressed to, from its Host header (behind a proxy: X-Forwarded-Host/Proto). */
export function ownOriginOf(url: string, headers: Headers): string {
  const u = new URL(url);
  const host = headers.get("x-forwarded-host") ?? headers.get("host") ?? u.host;
  const proto = headers.get("x-forwarded-proto") ?? u.protocol.replace(":", "");
  return `${proto}://${host}`;
}

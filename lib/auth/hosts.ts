/**
 * DNS rebinding (issue 28): a page on another site whose name resolves to 127.0.0.1 reaches Metron with its own
 * `Host` (and `Origin`), so the same-origin check passes for it. Every request must therefore name a host Metron
 * knows: this machine's loopback names, and whatever `METRON_ALLOWED_HOSTS` lists (comma-separated host names, with
 * or without a port; `*` accepts any host, for a deployment behind a proxy that checks it). Pure.
 */
const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/** The host of a `Host` header, lower-cased, without its port (`[::1]:3000` → `[::1]`). */
export function hostName(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const colon = h.lastIndexOf(":");
  return colon >= 0 && h.indexOf(":") === colon ? h.slice(0, colon) : h;
}

export function allowedHosts(setting = process.env.METRON_ALLOWED_HOSTS): string[] {
  return (setting ?? "")
    .split(",")
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

/** Why a request's `Host` is refused, or null when it is allowed. */
export function hostRefusal(header: string | null, extra = allowedHosts()): string | null {
  if (extra.includes("*")) return null;
  if (!header) return "refused: the request names no Host";
  const h = header.trim().toLowerCase();
  const name = hostName(h);
  if (LOOPBACK.has(name) || /^127\.\d+\.\d+\.\d+$/.test(name)) return null;
  if (extra.includes(h) || extra.includes(name)) return null;
  return `refused: Host "${header.slice(0, 200)}" is not this server's (127.0.0.1, localhost, [::1]); a server reached under another name lists it in METRON_ALLOWED_HOSTS`;
}

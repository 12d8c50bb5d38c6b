/**
 * Access tokens (docs/security.md). `METRON_TOKEN` is one write token named "default"; `METRON_TOKENS_FILE` names a
 * JSON file of several: `[{ "name": "alice", "token": "…", "access": "write" | "read" }]`. Without either, Metron is
 * open and listens on 127.0.0.1 only. Tokens are compared in constant time (their SHA-256 digests) and never logged.
 * The browser's session cookie carries the token's name and an HMAC keyed by the token, never the token itself.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { isRevoked } from "./sessions";
import { z } from "zod";

export type Access = "read" | "write";
export interface Principal {
  name: string;
  access: Access;
}
interface TokenEntry extends Principal {
  digest: Buffer;
  token: string;
}

export const SESSION_COOKIE = "metron_session";

const fileSchema = z
  .array(
    z.object({
      name: z
        .string()
        .min(1)
        .max(100)
        .regex(/^[\w.@-]+$/),
      token: z.string().min(16, "a token needs at least 16 characters"),
      access: z.enum(["read", "write"]),
    }),
  )
  .min(1);

const digest = (s: string) => createHash("sha256").update(s).digest();

let cached: { key: string; entries: TokenEntry[] } | undefined;

/** What identifies a version of the tokens file: a token removed from it stops working at the next request. */
function fileVersion(file: string | undefined): string {
  if (!file) return "";
  try {
    const s = statSync(file);
    return `${s.mtimeMs}:${s.size}:${s.ino}`;
  } catch {
    return "missing";
  }
}

/**
 * The configured tokens, re-read when the environment or the tokens file changes (its modification time, size or
 * inode: an edit or a replacement); an invalid file is an error that names it.
 */
export function configuredTokens(): TokenEntry[] {
  const file = process.env.METRON_TOKENS_FILE;
  const key = `${process.env.METRON_TOKEN ?? ""}\u0000${file ?? ""}\u0000${fileVersion(file)}`;
  if (cached?.key === key) return cached.entries;
  const entries: TokenEntry[] = [];
  if (process.env.METRON_TOKEN) {
    if (process.env.METRON_TOKEN.length < 16) throw new Error("METRON_TOKEN needs at least 16 characters");
    entries.push({
      name: "default",
      access: "write",
      token: process.env.METRON_TOKEN,
      digest: digest(process.env.METRON_TOKEN),
    });
  }
  if (process.env.METRON_TOKENS_FILE) {
    let parsed;
    try {
      parsed = fileSchema.safeParse(JSON.parse(readFileSync(process.env.METRON_TOKENS_FILE, "utf8")));
    } catch (e) {
      throw new Error(`METRON_TOKENS_FILE (${process.env.METRON_TOKENS_FILE}) cannot be read: ${(e as Error).message}`);
    }
    if (!parsed.success)
      throw new Error(
        `METRON_TOKENS_FILE: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
      );
    for (const t of parsed.data) entries.push({ ...t, digest: digest(t.token) });
  }
  cached = { key, entries };
  return entries;
}

export function authEnabled(): boolean {
  return configuredTokens().length > 0;
}

/** The principal of a presented token, compared in constant time against every configured one. */
export function principalOfToken(presented: string | null | undefined): Principal | null {
  if (!presented) return null;
  const d = digest(presented);
  let found: TokenEntry | null = null;
  for (const t of configuredTokens()) if (timingSafeEqual(d, t.digest)) found = t;
  return found ? { name: found.name, access: found.access } : null;
}

/** How long a browser session lasts (the cookie's Max-Age). */
export const SESSION_SECONDS = 30 * 24 * 3600;

const mac = (t: TokenEntry, session: string) =>
  createHmac("sha256", t.token).update(`metron-session:${t.name}:${session}`).digest("base64url");

/**
 * A new session's cookie value: `<name>.<session id>.<issued, base 36>.<HMAC>`. The session id lets sign-out revoke
 * this one session on the server (sessions.ts); the HMAC is keyed by the token, so changing the token ends them all.
 */
export function sessionCookieValue(principal: Principal, now = Date.now()): string {
  const t = configuredTokens().find((e) => e.name === principal.name)!;
  const session = `${randomBytes(12).toString("base64url")}.${now.toString(36)}`;
  return `${t.name}.${session}.${mac(t, session)}`;
}

export interface Session extends Principal {
  id: string;
  issuedAt: number;
}

/** The session a cookie names, if its HMAC holds, it has not expired and it was not signed out. */
export function sessionOf(value: string | null | undefined, now = Date.now()): Session | null {
  const parts = value?.split(".") ?? [];
  if (parts.length !== 4) return null;
  const [name, id, issued, given] = parts;
  const issuedAt = parseInt(issued, 36);
  if (!Number.isFinite(issuedAt) || now - issuedAt > SESSION_SECONDS * 1000) return null;
  const givenBytes = Buffer.from(given);
  let found: TokenEntry | null = null;
  for (const t of configuredTokens()) {
    const expected = Buffer.from(mac(t, `${id}.${issued}`));
    if (t.name === name && expected.length === givenBytes.length && timingSafeEqual(expected, givenBytes)) found = t;
  }
  if (!found || isRevoked(id)) return null;
  return { name: found.name, access: found.access, id, issuedAt };
}

export function principalOfSession(value: string | null | undefined): Principal | null {
  const s = sessionOf(value);
  return s ? { name: s.name, access: s.access } : null;
}

/**
 * A request's principal: `Authorization: Bearer`, or `Basic` whose password is a token (what an exporter that only
 * sends a key pair, like Langfuse's span processor, can carry), else the session cookie.
 */
export function principalOf(headers: Headers, cookie: string | undefined): Principal | null {
  const auth = headers.get("authorization")?.trim();
  const bearer = auth && /^Bearer\s+(.+)$/i.exec(auth)?.[1];
  const basic = auth && /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(auth)?.[1];
  const password = basic ? Buffer.from(basic, "base64").toString("utf8").split(":").slice(1).join(":") : undefined;
  return principalOfToken(bearer) ?? principalOfToken(password || undefined) ?? principalOfSession(cookie);
}

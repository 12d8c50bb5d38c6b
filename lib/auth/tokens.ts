/**
 * Access tokens (docs/security.md). `METRON_TOKEN` is one write token named "default"; `METRON_TOKENS_FILE` names a
 * JSON file of several: `[{ "name": "alice", "token": "…", "access": "write" | "read" }]`. Without either, Metron is
 * open and listens on 127.0.0.1 only. Tokens are compared in constant time (their SHA-256 digests) and never logged.
 * The browser's session cookie carries the token's name and an HMAC keyed by the token, never the token itself.
 */
import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
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

/** The configured tokens (re-read when the environment changes); an invalid file is an error that names it. */
export function configuredTokens(): TokenEntry[] {
  const key = `${process.env.METRON_TOKEN ?? ""}\u0000${process.env.METRON_TOKENS_FILE ?? ""}`;
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

const mac = (t: TokenEntry) => createHmac("sha256", t.token).update(`metron-session:${t.name}`).digest("base64url");

export function sessionCookieValue(principal: Principal): string {
  const t = configuredTokens().find((e) => e.name === principal.name)!;
  return `${t.name}.${mac(t)}`;
}

export function principalOfSession(value: string | null | undefined): Principal | null {
  if (!value) return null;
  const dot = value.lastIndexOf(".");
  if (dot <= 0) return null;
  const name = value.slice(0, dot);
  const given = Buffer.from(value.slice(dot + 1));
  let found: TokenEntry | null = null;
  for (const t of configuredTokens()) {
    const expected = Buffer.from(mac(t));
    if (t.name === name && expected.length === given.length && timingSafeEqual(expected, given)) found = t;
  }
  return found ? { name: found.name, access: found.access } : null;
}

/** A request's principal: `Authorization: Bearer`, else the session cookie. */
export function principalOf(headers: Headers, cookie: string | undefined): Principal | null {
  const auth = headers.get("authorization");
  const bearer = auth && /^Bearer\s+(.+)$/i.exec(auth.trim())?.[1];
  return principalOfToken(bearer) ?? principalOfSession(cookie);
}

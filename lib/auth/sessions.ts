/**
 * Signed-out browser sessions (issue 28): a cookie stays valid by its HMAC alone, so sign-out records its session id
 * in a small file beside the store (`<DATABASE_PATH folder>/revoked-sessions.json`, id → when it expires anyway) that
 * every process re-reads when it changes. Entries are dropped once their session would have expired.
 */
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

function file(): string {
  const store = path.resolve(
    /*turbopackIgnore: true*/ process.env.DATABASE_PATH ?? path.join(process.cwd(), "data", "metron.db"),
  );
  return path.join(path.dirname(store), "revoked-sessions.json");
}

let cache: { file: string; version: string; revoked: Map<string, number> } | undefined;

function load(): Map<string, number> {
  const f = file();
  let version = "missing";
  try {
    const s = statSync(f);
    version = `${s.mtimeMs}:${s.size}`;
  } catch {
    // none signed out yet
  }
  if (cache?.file === f && cache.version === version) return cache.revoked;
  let revoked = new Map<string, number>();
  if (version !== "missing") {
    try {
      revoked = new Map(Object.entries(JSON.parse(readFileSync(f, "utf8")) as Record<string, number>));
    } catch {
      // A damaged file revokes nothing more; the next sign-out writes it anew.
    }
  }
  cache = { file: f, version, revoked };
  return revoked;
}

export function isRevoked(sessionId: string): boolean {
  return load().has(sessionId);
}

/** Records a session as signed out until `expiresAt` (ms), when its cookie would stop working anyway. */
export function revokeSession(sessionId: string, expiresAt: number, now = Date.now()): void {
  const revoked = new Map([...load()].filter(([, until]) => until > now));
  revoked.set(sessionId, expiresAt);
  const f = file();
  mkdirSync(path.dirname(f), { recursive: true });
  const tmp = `${f}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(Object.fromEntries(revoked)));
  renameSync(tmp, f);
  cache = undefined;
}

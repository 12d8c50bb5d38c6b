import { mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { revokeSession } from "./sessions";
import { recordSignInFailure, signInWait } from "./sign-in-limit";
import { principalOf, principalOfSession, principalOfToken, sessionCookieValue, sessionOf } from "./tokens";

describe("tokens and sessions (issue 28)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-tokens-"));
  const file = path.join(dir, "tokens.json");
  const saved = { ...process.env };
  const write = (tokens: { name: string; token: string; access: string }[], mtime: number) => {
    writeFileSync(file, JSON.stringify(tokens));
    utimesSync(file, mtime, mtime);
  };
  beforeAll(() => {
    process.env.METRON_TOKENS_FILE = file;
    process.env.DATABASE_PATH = path.join(dir, "metron.db");
    delete process.env.METRON_TOKEN;
  });
  afterAll(() => {
    process.env = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  it("a token is read from Bearer, or from Basic auth's password (Langfuse's span processor sends its key pair)", () => {
    write([{ name: "alice", token: "alice-token-0123456789", access: "write" }], 3_000);
    const basic = (user: string, password: string) =>
      new Headers({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}` });
    expect(principalOf(new Headers({ authorization: "Bearer alice-token-0123456789" }), undefined)?.name).toBe("alice");
    expect(principalOf(basic("pk-lf-anything", "alice-token-0123456789"), undefined)?.name).toBe("alice");
    expect(principalOf(basic("alice-token-0123456789", "wrong"), undefined)).toBeNull(); // the user name is not it
    expect(principalOf(basic("pk", ""), undefined)).toBeNull();
    expect(principalOf(new Headers({ authorization: "Basic !!!" }), undefined)).toBeNull();
  });

  it("re-reads the tokens file when it changes: a removed token stops working at once, without a restart", () => {
    write(
      [
        { name: "alice", token: "alice-token-0123456789", access: "write" },
        { name: "bob", token: "bob-token-0123456789ab", access: "read" },
      ],
      1_000,
    );
    expect(principalOfToken("bob-token-0123456789ab")).toEqual({ name: "bob", access: "read" });
    const bobSession = sessionCookieValue({ name: "bob", access: "read" });
    expect(principalOfSession(bobSession)).toEqual({ name: "bob", access: "read" });
    write([{ name: "alice", token: "alice-token-0123456789", access: "write" }], 2_000);
    expect(principalOfToken("bob-token-0123456789ab")).toBeNull();
    expect(principalOfSession(bobSession)).toBeNull();
    expect(principalOfToken("alice-token-0123456789")).toEqual({ name: "alice", access: "write" });
  });

  it("revokes one signed-out session on the server, leaving the token's other sessions", () => {
    const a = sessionCookieValue({ name: "alice", access: "write" });
    const b = sessionCookieValue({ name: "alice", access: "write" });
    const session = sessionOf(a)!;
    revokeSession(session.id, session.issuedAt + 1000 * 3600);
    expect(sessionOf(a)).toBeNull();
    expect(sessionOf(b)).toMatchObject({ name: "alice" });
    // A forged or expired cookie is nothing.
    expect(sessionOf(b.replace(/.$/, (c) => (c === "A" ? "B" : "A")))).toBeNull();
    expect(sessionOf(b, Date.now() + 31 * 24 * 3600 * 1000)).toBeNull();
    expect(principalOfSession("alice.old-format-mac")).toBeNull();
  });

  it("refuses a client's sign-ins for the rest of the minute after 10 failures", () => {
    const t0 = 1_000_000;
    for (let i = 0; i < 10; i++) {
      expect(signInWait("guesser", t0 + i)).toBe(0);
      recordSignInFailure("guesser", t0 + i);
    }
    expect(signInWait("guesser", t0 + 10)).toBe(60_000 - 10);
    expect(signInWait("someone else", t0 + 10)).toBe(0);
    expect(signInWait("guesser", t0 + 60_001)).toBe(0);
  });
});

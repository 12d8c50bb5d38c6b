import { describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { canonicalJson, runIdOf, serializeTrace } from "./hash";
import type { Trace } from "./types";

/** The definition: keys sorted at every level, built piece by piece (canonicalJson may take a faster path). */
function reference(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return "[" + value.map((v) => reference(v === undefined ? null : v)).join(",") + "]";
  const parts: string[] = [];
  for (const k of Object.keys(value).sort()) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) parts.push(JSON.stringify(k) + ":" + reference(v));
  }
  return "{" + parts.join(",") + "}";
}

function random(seed: number) {
  let s = seed;
  const next = () => (s = (s * 1103515245 + 12345) >>> 0) / 2 ** 32;
  const keys = ["a", "b", "B", "10", "9", "z", "é", "", "key with space", "ab", "a\u0000"];
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 3 || r < 0.4) {
      const p = [null, true, false, 0, -0, 1.5, -7, 1e21, NaN, "x", 'quote"d', "\u2028", undefined];
      return p[Math.floor(next() * p.length)];
    }
    if (r < 0.7) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const o: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 5); i > 0; i--) o[keys[Math.floor(next() * keys.length)]] = value(depth + 1);
    return o;
  };
  return value;
}

describe("canonicalJson", () => {
  it("writes the canonical form whatever the key order, on 5,000 random values", () => {
    const value = random(42);
    for (let i = 0; i < 5000; i++) {
      const v = value(0);
      expect(canonicalJson(v)).toBe(reference(v));
    }
  });

  it("takes sorted and unsorted nestings alike, integer-like keys included", () => {
    const cases = [
      { b: 1, a: [{ d: 1, c: 2 }] },
      { a: 1, b: { "9": 1, "10": 2 } },
      [[1, "a"], { a: undefined, b: null }, undefined],
      { a: { b: { c: [{ y: 1, x: 2 }] } } },
      Object.assign(Object.create(null), { b: 2, a: 1 }),
    ];
    for (const v of cases) expect(canonicalJson(v)).toBe(reference(v));
    expect(canonicalJson({ b: 1, a: { d: 1, c: 2 } })).toBe('{"a":{"c":2,"d":1},"b":1}');
  });
});

describe("a trace's id", () => {
  it("is the SHA-256 of the documented canonical form, and stays the one ids were made with", () => {
    const big = "row\n".repeat(600); // over the blob threshold: it enters by its own hash
    const trace = {
      run: { name: "r", system: "s", model: "m" },
      question: { id: "q1", db_id: "pets_1", text: "Wie viele Haustiere?" },
      sample: 0,
      final_sql: "SELECT count(*) FROM pets",
      outcome: { status: "submitted", correct: null },
      usage: { input_tokens: 12 },
      meta: {},
      steps: [
        { seq: 0, type: "tool_call", tool: "list_tables", args: { b: 1, a: [2, { d: 3, c: 4 }] }, result: "pets" },
        { seq: 1, type: "tool_call", tool: "read_query", args: { query: "SELECT *" }, result: big, duration_ms: 5 },
        { seq: 2, type: "message", role: "assistant", content: "fertig", usage: { output_tokens: 3 }, meta: { z: 1 } },
      ],
    } as unknown as Trace;
    // The definition (lib/trace/hash.ts), written out independently: the header's canonical JSON, then per step NUL,
    // its fixed fields in sorted order joined by NUL, NUL, args, NUL, meta, NUL, and the result's hash, or else the
    // result itself after it.
    const sha = (s: string) => createHash("sha256").update(s).digest("hex");
    const step = (s: Record<string, unknown>, result: string | null) => {
      const u = s.usage as Record<string, number> | undefined;
      const q = (v: unknown) => (v === undefined ? "" : JSON.stringify(v));
      const n = (v: unknown) => (v === undefined ? "" : String(v));
      const fixed = [
        q(s.content),
        n(s.duration_ms),
        "",
        q(s.model),
        q(s.role),
        s.seq,
        q(s.started_at),
        q(s.tool),
        s.type,
        u ? `${n(u.cached_input_tokens)},${n(u.input_tokens)},${n(u.output_tokens)},${n(u.reasoning_tokens)}` : "",
      ].join("\u0000");
      const args = s.args === undefined ? "" : reference(s.args);
      const meta = s.meta === undefined ? "" : reference(s.meta);
      const large = result !== null && result.length >= 2048;
      return `\u0000${fixed}\u0000${args}\u0000${meta}\u0000${large ? sha(result) : ""}${!large && result !== null ? result : ""}`;
    };
    const { steps, ...header } = trace as unknown as { steps: Record<string, unknown>[] };
    const form =
      reference(header) + steps.map((s) => step(s, s.result === undefined ? null : JSON.stringify(s.result))).join("");
    const { id, steps: serialized } = serializeTrace(trace, 2048);
    expect(id).toBe(sha(form));
    expect(serialized[1].resultHash).toBe(sha(JSON.stringify(big)));
    expect(serialized[0].resultHash).toBeNull();
    // Pinned: a change to the canonical form would give every stored trace a new id (its duplicates would be stored
    // again). This is the id the code before 2026-12-03 gave (one hash update per step), and the one-call hash gives.
    expect(id).toBe("38ec44ce2d47205527b7f9ecade40a75b51760450864599d2f36de8b5285641a");
  });
});

describe("a run's id", () => {
  it("is the first 16 hex digits of the SHA-256 of [name, system, model], the same when asked again", () => {
    const runs = Array.from({ length: 1500 }, (_, i) => ({ name: `run ${i % 1200}`, system: "ReAct", model: "m" }));
    const expected = (r: (typeof runs)[number]) =>
      createHash("sha256")
        .update(JSON.stringify([r.name, r.system, r.model]))
        .digest("hex")
        .slice(0, 16);
    // Past the memo's 1,000 entries and back: every id is still the definition's.
    for (const r of [...runs, ...runs]) expect(runIdOf(r)).toBe(expected(r));
    expect(runIdOf({ name: "a", system: "b", model: "c" })).toBe("fa1844c2988ad15a"); // pinned: stores hold these ids
    expect(runIdOf({ name: "a", system: "bc", model: "" })).not.toBe(runIdOf({ name: "ab", system: "c", model: "" }));
  });
});

import { describe, expect, it } from "vitest";
import { canonicalJson } from "./hash";

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

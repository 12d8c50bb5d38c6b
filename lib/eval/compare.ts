/**
 * Result comparison for execution accuracy. BIRD's official evaluator compares the rows of the predicted and
 * gold results as sets; bag (multiset) and ordered comparisons are offered too, and `order-aware` compares in
 * order exactly when the gold SQL has a top-level ORDER BY. Numbers compare exactly by default (1 equals 1.0,
 * as in Python); the named `sig10` mode rounds to 10 significant digits first. Pure.
 */
import { tokenize } from "@/lib/sql/scan-tables";
import type { SqlValue } from "@/lib/sandbox/sandbox";

/** `spider2` is Spider 2.0's column comparison (spider2.ts); the others compare rows (resultsMatch). */
export const compareModes = ["set", "bag", "ordered", "order-aware", "spider2"] as const;
export type CompareMode = (typeof compareModes)[number];

/**
 * How numbers compare. `exact` (the default) is what BIRD's and Spider's evaluators do: Python compares the rows'
 * values exactly, and 1 equals 1.0. `sig10` rounds non-integers to 10 significant digits first, forgiving
 * floating-point noise (0.1 + 0.2 against 0.3); it is a named choice, shown on the run page when used.
 */
export const numericModes = ["exact", "sig10"] as const;
export type NumericMode = (typeof numericModes)[number];

function valueKey(v: SqlValue, numeric: NumericMode): string {
  if (v === null) return "n";
  if (typeof v === "number")
    return Number.isInteger(v) || numeric === "exact" ? `d${v}` : `d${Number(v.toPrecision(10))}`;
  if (typeof v === "bigint") return `d${v}`;
  if (typeof v === "string") return `s${v}`;
  return `b${Buffer.from(v).toString("hex")}`;
}

export function rowKey(row: SqlValue[], numeric: NumericMode = "exact"): string {
  return row.map((v) => valueKey(v, numeric)).join("\u0001");
}

/** True when the SQL has an ORDER BY outside parentheses, strings and comments (read from SQL tokens). */
export function hasTopLevelOrderBy(sql: string): boolean {
  let depth = 0;
  const tokens = tokenize(sql);
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === "punct") {
      if (t.text === "(") depth++;
      else if (t.text === ")") depth--;
    } else if (
      depth === 0 &&
      t.kind === "word" &&
      t.text.toLowerCase() === "order" &&
      tokens[i + 1]?.kind === "word" &&
      tokens[i + 1].text.toLowerCase() === "by"
    )
      return true;
  }
  return false;
}

export function resultsMatch(
  gold: SqlValue[][],
  pred: SqlValue[][],
  mode: Exclude<CompareMode, "spider2">,
  goldSql = "",
  numeric: NumericMode = "exact",
): boolean {
  const effective = mode === "order-aware" ? (hasTopLevelOrderBy(goldSql) ? "ordered" : "set") : mode;
  const g = gold.map((r) => rowKey(r, numeric));
  const p = pred.map((r) => rowKey(r, numeric));
  if (effective === "ordered") return g.length === p.length && g.every((k, i) => k === p[i]);
  if (effective === "set") {
    const gs = new Set(g);
    const ps = new Set(p);
    return gs.size === ps.size && [...gs].every((k) => ps.has(k));
  }
  if (g.length !== p.length) return false;
  const counts = new Map<string, number>();
  for (const k of g) counts.set(k, (counts.get(k) ?? 0) + 1);
  for (const k of p) {
    const n = counts.get(k);
    if (!n) return false;
    counts.set(k, n - 1);
  }
  return true;
}

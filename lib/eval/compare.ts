/**
 * Result comparison for execution accuracy. BIRD's official evaluator compares the rows of the predicted and
 * gold results as sets; bag (multiset) and ordered comparisons are offered too, and `order-aware` compares in
 * order exactly when the gold SQL has a top-level ORDER BY. Numbers are compared after rounding to 10
 * significant digits (floating-point noise), and 1 equals 1.0 as in Python. Pure.
 */
import type { SqlValue } from "./sandbox";

export const compareModes = ["set", "bag", "ordered", "order-aware"] as const;
export type CompareMode = (typeof compareModes)[number];

function valueKey(v: SqlValue): string {
  if (v === null) return "n";
  if (typeof v === "number") return Number.isInteger(v) ? `d${v}` : `d${Number(v.toPrecision(10))}`;
  if (typeof v === "bigint") return `d${v}`;
  if (typeof v === "string") return `s${v}`;
  return `b${Buffer.from(v).toString("hex")}`;
}

export function rowKey(row: SqlValue[]): string {
  return row.map(valueKey).join("\u0001");
}

/** True when the SQL has an ORDER BY outside parentheses (and outside strings). */
export function hasTopLevelOrderBy(sql: string): boolean {
  let depth = 0;
  let flat = "";
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i];
    if (c === "'" || c === '"' || c === "`") {
      const end = sql.indexOf(c, i + 1);
      i = end === -1 ? sql.length : end;
      flat += " ";
    } else if (c === "(") depth++;
    else if (c === ")") depth--;
    else if (depth === 0) flat += c;
  }
  return /\border\s+by\b/i.test(flat);
}

export function resultsMatch(gold: SqlValue[][], pred: SqlValue[][], mode: CompareMode, goldSql = ""): boolean {
  const effective = mode === "order-aware" ? (hasTopLevelOrderBy(goldSql) ? "ordered" : "set") : mode;
  const g = gold.map(rowKey);
  const p = pred.map(rowKey);
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

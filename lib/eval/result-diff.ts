/** Rows of a predicted result missing from the gold result and extra to it, as multisets; capped, with counts. Pure. */
import { rowKey } from "./compare";
import type { SqlValue } from "@/lib/sandbox/sandbox";

export interface ResultDiff {
  missing: SqlValue[][];
  extra: SqlValue[][];
  missingCount: number;
  extraCount: number;
  commonCount: number;
}

export function diffResults(gold: SqlValue[][], pred: SqlValue[][], cap = 100): ResultDiff {
  const pending = new Map<string, number>();
  for (const row of pred) pending.set(rowKey(row), (pending.get(rowKey(row)) ?? 0) + 1);
  const missing: SqlValue[][] = [];
  let missingCount = 0;
  let commonCount = 0;
  for (const row of gold) {
    const key = rowKey(row);
    const n = pending.get(key) ?? 0;
    if (n > 0) {
      pending.set(key, n - 1);
      commonCount++;
    } else {
      missingCount++;
      if (missing.length < cap) missing.push(row);
    }
  }
  const extra: SqlValue[][] = [];
  let extraCount = 0;
  for (const row of pred) {
    const key = rowKey(row);
    const n = pending.get(key) ?? 0;
    if (n > 0) {
      pending.set(key, n - 1);
      extraCount++;
      if (extra.length < cap) extra.push(row);
    }
  }
  return { missing, extra, missingCount, extraCount, commonCount };
}

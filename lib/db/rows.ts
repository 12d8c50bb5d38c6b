/**
 * Rows of the store's tables as the app's types (`typeof runs.$inferSelect` and the rest) on either engine: the
 * columns of the one description (schema.ts) map snake_case names to their keys and decode their values (JSON text
 * parsed, 0/1 to booleans) with drizzle's own column mappers.
 */
import { getTableColumns } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";

export function fromRow<T extends SQLiteTable>(table: T, row: Record<string, unknown>): T["$inferSelect"] {
  const out: Record<string, unknown> = {};
  for (const [key, col] of Object.entries(getTableColumns(table))) {
    const v = row[col.name];
    out[key] = v === null || v === undefined ? null : col.mapFromDriverValue(v);
  }
  return out as T["$inferSelect"];
}

/** BIRD's per-column descriptions: `database_description/<table>.csv` with `original_column_name, column_name, column_description, data_format, value_description`. */
import { parse } from "csv-parse/sync";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileUnder } from "@/lib/files/under";
import { decodeText } from "./text-decode";

export interface ColumnDescription {
  description?: string;
  valueDescription?: string;
}

/** table (lower case) → column (lower case) → description. */
export type DescriptionMap = Map<string, Map<string, ColumnDescription>>;

export function parseDescriptionCsv(text: string): Map<string, ColumnDescription> {
  const rows = parse(text, {
    columns: true,
    skip_empty_lines: true,
    relax_column_count: true,
    relax_quotes: true,
    trim: true,
  }) as Record<string, string>[];
  const out = new Map<string, ColumnDescription>();
  for (const row of rows) {
    const column = (row.original_column_name ?? "").trim();
    if (!column) continue;
    const description = (row.column_description || row.column_name || "").trim() || undefined;
    const valueDescription = (row.value_description ?? "").trim() || undefined;
    out.set(column.toLowerCase(), { description, valueDescription });
  }
  return out;
}

/** Reads `<dir>/<db_id>/<table>.csv` (or `<dir>/<db_id>/database_description/<table>.csv`), whatever their encoding. */
export function readDescriptions(
  dir: string,
  dbId: string,
): { map: DescriptionMap; files: { file: string; encoding: string }[] } {
  const map: DescriptionMap = new Map();
  const files: { file: string; encoding: string }[] = [];
  const own = fileUnder(dir, dbId, "", "db_id");
  const candidates = [path.join(own, "database_description"), own];
  const folder = candidates.find((c) => existsSync(c) && readdirSync(c).some((f) => f.toLowerCase().endsWith(".csv")));
  if (!folder) return { map, files };
  for (const file of readdirSync(folder)) {
    if (!file.toLowerCase().endsWith(".csv")) continue;
    const { text, encoding } = decodeText(readFileSync(fileUnder(folder, file)));
    map.set(file.slice(0, -4).toLowerCase(), parseDescriptionCsv(text));
    files.push({ file, encoding });
  }
  return { map, files };
}

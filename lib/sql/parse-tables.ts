/**
 * Table references without a database. `parseTables` uses node-sql-parser (SQLite dialect): CTE names removed,
 * `main.` stripped, names folded to the schema's spelling when the schema's table names are known.
 * node-sql-parser rejects non-ASCII identifiers (Spider-de's `sänger`), so they are swapped for ASCII
 * placeholders before parsing and swapped back after.
 */
import { createRequire } from "node:module";
import type { Parser as SqlParser } from "node-sql-parser";
import { foldTable } from "./fold-table";

export { foldTable };

// Loaded on first use: the fast scan and EXPLAIN do without it, and so do the CLI's quick commands. Its SQLite
// build alone (206 kB; the package's main file holds all 14 dialects, 2.5 MB). The server requires it from
// node_modules (next.config.ts: serverExternalPackages), once: bundled, every route's chunks held a copy of it.
let parser: SqlParser | null = null;
const getParser = (): SqlParser => {
  if (!parser) {
    const { Parser } = createRequire(import.meta.url)(
      "node-sql-parser/build/sqlite",
    ) as typeof import("node-sql-parser/build/sqlite");
    parser = new Parser();
  }
  return parser;
};
const NON_ASCII_IDENT = /[\p{L}\p{N}_$]*[^\x00-\x7F][\p{L}\p{N}_$]*/gu;

export function parseTables(sql: string, schemaTables?: readonly string[]): string[] {
  const placeholders = new Map<string, string>();
  const ascii = sql.replace(NON_ASCII_IDENT, (ident) => {
    const key = `__metron_u${placeholders.size}__`;
    placeholders.set(key, ident);
    return key;
  });
  const { tableList, ast } = getParser().parse(ascii.trim().replace(/;\s*$/, ""), { database: "sqlite" });
  const cteNames = new Set<string>();
  for (const statement of Array.isArray(ast) ? ast : [ast]) collectCteNames(statement, cteNames);
  const tables = new Set<string>();
  for (const entry of tableList) {
    const [, db, raw] = entry.split("::");
    const name = placeholders.get(raw) ?? raw;
    if (db === "temp") continue;
    if (cteNames.has(name.toLowerCase())) continue;
    tables.add(foldTable(name, schemaTables));
  }
  return [...tables];
}

function collectCteNames(node: unknown, into: Set<string>): void {
  if (!node || typeof node !== "object") return;
  if (Array.isArray(node)) {
    for (const n of node) collectCteNames(n, into);
    return;
  }
  const obj = node as Record<string, unknown>;
  if (Array.isArray(obj.with)) {
    for (const cte of obj.with as { name?: { value?: string } | string }[]) {
      const name = typeof cte.name === "string" ? cte.name : cte.name?.value;
      if (name) into.add(name.toLowerCase());
    }
  }
  for (const value of Object.values(obj)) if (value && typeof value === "object") collectCteNames(value, into);
}

/**
 * The values a database holds, for matching a question's literals ("dog", 'france', "American Motor Company")
 * to the tables that hold them. Built offline with the column index: for each text column, up to
 * `MAX_VALUES_PER_COLUMN` distinct short values (read-only; schema-only databases have none). Matching is exact
 * after case folding, on quoted literals and on runs of one to three words of the question (a run of words also
 * without its spaces: `valueTables` in computed.ts).
 */
import Database from "better-sqlite3";
import type { DatabaseInfo } from "../database-info";

const MAX_VALUES_PER_COLUMN = 2000;
const MAX_VALUE_LENGTH = 60;
const MIN_VALUE_LENGTH = 2;

export type ValueIndex = [value: string, tables: string[]][];

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function buildValueIndex(database: DatabaseInfo): ValueIndex {
  if (database.schemaOnly) return [];
  const values = new Map<string, Set<string>>();
  let db: Database.Database | undefined;
  try {
    db = new Database(database.path, { readonly: true, fileMustExist: true });
    for (const t of database.tables) {
      for (const c of t.columns) {
        if (c.type && !/char|text|clob|string|^$/i.test(c.type)) continue;
        let rows: { v: unknown }[];
        try {
          rows = db
            .prepare(
              `SELECT DISTINCT ${quoteIdent(c.name)} AS v FROM ${quoteIdent(t.name)} WHERE typeof(${quoteIdent(c.name)}) = 'text' AND length(${quoteIdent(c.name)}) BETWEEN ${MIN_VALUE_LENGTH} AND ${MAX_VALUE_LENGTH} LIMIT ${MAX_VALUES_PER_COLUMN}`,
            )
            .all() as { v: unknown }[];
        } catch {
          continue;
        }
        for (const { v } of rows) {
          const key = String(v).trim().toLowerCase();
          if (key.length < MIN_VALUE_LENGTH || /^[\d\s.,:/-]+$/.test(key)) continue; // numbers and dates match too much
          let set = values.get(key);
          if (!set) values.set(key, (set = new Set()));
          set.add(t.name);
        }
      }
    }
  } catch {
    return [];
  } finally {
    db?.close();
  }
  return [...values.entries()].map(([v, tables]) => [v, [...tables]]);
}

/** The literals of a question worth looking up: quoted strings, and runs of 1–3 words. */
export function questionLiterals(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/["'“”‘’„`]([^"'“”‘’„`]{2,60})["'“”‘’„`]/g)) out.add(m[1].trim().toLowerCase());
  const words = text
    .split(/[\s,;:?!()]+/)
    .map((w) => w.replace(/^[.'"]+|[.'"]+$/g, ""))
    .filter(Boolean);
  for (let n = 1; n <= 3; n++) {
    for (let i = 0; i + n <= words.length; i++) {
      const phrase = words
        .slice(i, i + n)
        .join(" ")
        .toLowerCase();
      if (phrase.length >= 3 && !/^[\d\s.,:/-]+$/.test(phrase)) out.add(phrase);
    }
  }
  return [...out];
}

/**
 * SQLite's legacy double-quoted string literals. The official BIRD and Spider evaluators run SQL through
 * Python's sqlite3, where `WHERE name = "Bob"` compares with the string 'Bob' when no column is named Bob.
 * better-sqlite3 is compiled with SQLITE_DQS=0 and does not expose sqlite3_db_config to turn it back on,
 * so we emulate it: prepare; on "no such column: X" where X is a double-quoted token of the statement,
 * turn that token into a string literal and prepare again. Only tokens SQLite could not resolve change,
 * which is exactly the legacy rule.
 */
import type Database from "better-sqlite3";
import { prepareLegacy as prepareLegacyJs, quoteAsString as quoteAsStringJs } from "./legacy-dqs.mjs";

/** Replaces every double-quoted token `"name"` (outside string literals and comments) by `'name'`. */
export const quoteAsString: (sql: string, name: string) => string = quoteAsStringJs;

/** Prepares `prefix + sql` with legacy double-quoted strings; returns the statement and the SQL it ran. */
export function prepareLegacy(
  db: Database.Database,
  sql: string,
  prefix = "",
): { statement: Database.Statement; sql: string } {
  return prepareLegacyJs(db, sql, prefix) as { statement: Database.Statement; sql: string };
}

/**
 * SQLite's legacy double-quoted string literals. The official BIRD and Spider evaluators run SQL through
 * Python's sqlite3, where `WHERE name = "Bob"` compares with the string 'Bob' when no column is named Bob.
 * better-sqlite3 is compiled with SQLITE_DQS=0 and does not expose sqlite3_db_config to turn it back on,
 * so we emulate it: prepare; on "no such column: X" where X is a double-quoted token of the statement,
 * turn that token into a string literal and prepare again. Only tokens SQLite could not resolve change,
 * which is exactly the legacy rule.
 */
import type Database from "better-sqlite3";

const MAX_REWRITES = 32;

/** Replaces every double-quoted token `"name"` (outside string literals and comments) by `'name'`. Linear: spans are copied whole. */
export function quoteAsString(sql: string, name: string): string {
  const parts: string[] = [];
  let last = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'") i = skipQuoted(sql, i, "'");
    else if (c === "-" && sql[i + 1] === "-") {
      const nl = sql.indexOf("\n", i);
      i = nl === -1 ? sql.length : nl;
    } else if (c === "/" && sql[i + 1] === "*") {
      const close = sql.indexOf("*/", i + 2);
      i = close === -1 ? sql.length : close + 2;
    } else if (c === '"') {
      const end = skipQuoted(sql, i, '"');
      const token = sql.slice(i + 1, end - 1).replace(/""/g, '"');
      if (token === name) {
        parts.push(sql.slice(last, i), `'${token.replace(/'/g, "''")}'`);
        last = end;
      }
      i = end;
    } else i++;
  }
  parts.push(sql.slice(last));
  return parts.join("");
}

function skipQuoted(sql: string, start: number, q: string): number {
  let i = start + 1;
  for (;;) {
    const j = sql.indexOf(q, i);
    if (j === -1) return sql.length;
    if (sql[j + 1] === q) i = j + 2;
    else return j + 1;
  }
}

/** Prepares `prefix + sql` with legacy double-quoted strings; returns the statement and the SQL it ran. */
export function prepareLegacy(
  db: Database.Database,
  sql: string,
  prefix = "",
): { statement: Database.Statement; sql: string } {
  let current = sql;
  for (let attempt = 0; ; attempt++) {
    try {
      return { statement: db.prepare(prefix + current), sql: current };
    } catch (e) {
      // SQLite ≥ 3.46 words it `no such column: "X" - should this be a string literal in single-quotes?`
      const m = /^no such column: (?:"(.*)" - should this be a string literal in single-quotes\?|(.+))$/.exec(
        (e as Error).message,
      );
      if (!m || attempt >= MAX_REWRITES) throw e;
      const rewritten = quoteAsString(current, m[1] ?? m[2]);
      if (rewritten === current) throw e;
      current = rewritten;
    }
  }
}

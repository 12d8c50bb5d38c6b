// SQLite's legacy double-quoted string literals (the rule and why: legacy-dqs.ts). Plain JavaScript so that the
// sandbox's worker process (unbundled) and the TypeScript code share one implementation.

const MAX_REWRITES = 32;

/**
 * Replaces every double-quoted token `"name"` (outside string literals and comments) by `'name'`. Linear: spans are
 * copied whole.
 * @param {string} sql
 * @param {string} name
 * @returns {string}
 */
export function quoteAsString(sql, name) {
  const parts = [];
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

/** @param {string} sql @param {number} start @param {string} q @returns {number} */
function skipQuoted(sql, start, q) {
  let i = start + 1;
  for (;;) {
    const j = sql.indexOf(q, i);
    if (j === -1) return sql.length;
    if (sql[j + 1] === q) i = j + 2;
    else return j + 1;
  }
}

/**
 * Prepares `prefix + sql` with legacy double-quoted strings; returns the statement and the SQL it ran.
 * @param {{ prepare: (sql: string) => unknown }} db
 * @param {string} sql
 * @param {string} [prefix]
 * @returns {{ statement: any; sql: string }}
 */
export function prepareLegacy(db, sql, prefix = "") {
  let current = sql;
  for (let attempt = 0; ; attempt++) {
    try {
      return { statement: db.prepare(prefix + current), sql: current };
    } catch (e) {
      // SQLite ≥ 3.46 words it `no such column: "X" - should this be a string literal in single-quotes?`
      const m = /^no such column: (?:"(.*)" - should this be a string literal in single-quotes\?|(.+))$/.exec(
        e instanceof Error ? e.message : String(e),
      );
      if (!m || attempt >= MAX_REWRITES) throw e;
      const rewritten = quoteAsString(current, m[1] ?? m[2]);
      if (rewritten === current) throw e;
      current = rewritten;
    }
  }
}

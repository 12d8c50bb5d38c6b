// What may run in the sandbox, decided by what SQLite says a statement does rather than by its spelling: exactly
// one statement (better-sqlite3 refuses several in one prepare), that SQLite reports read-only, on a connection
// opened read-only with query_only; ATTACH, DETACH and VACUUM refused whatever precedes them; and of the PRAGMAs,
// only a list of reading ones, whatever their case, quoting, schema prefix or leading comments and semicolons.
// Plain JavaScript: the worker process loads it unbundled. Legacy double-quoted strings are emulated as the
// official evaluators' Python sqlite3 does (lib/sql/legacy-dqs.mjs, shared with the TypeScript callers).

import { prepareLegacy } from "../sql/legacy-dqs.mjs";

export const READING_PRAGMAS = new Set([
  "table_info",
  "table_xinfo",
  "table_list",
  "index_list",
  "index_info",
  "index_xinfo",
  "foreign_key_list",
  "database_list",
  "collation_list",
  "function_list",
  "module_list",
  "pragma_list",
  "compile_options",
]);
const REFUSED_FIRST_WORDS = new Set(["attach", "detach", "vacuum"]);

/** The first word of a statement and, for a PRAGMA, its name and whether it assigns: comments and semicolons skipped. */
export function statementHead(sql) {
  let i = 0;
  const n = sql.length;
  const skip = () => {
    for (;;) {
      while (i < n && (/\s/.test(sql[i]) || sql[i] === ";")) i++;
      if (sql.startsWith("--", i)) {
        const nl = sql.indexOf("\n", i);
        i = nl === -1 ? n : nl + 1;
        continue;
      }
      if (sql.startsWith("/*", i)) {
        const end = sql.indexOf("*/", i + 2);
        i = end === -1 ? n : end + 2;
        continue;
      }
      return;
    }
  };
  const name = () => {
    skip();
    const c = sql[i];
    const close = c === '"' ? '"' : c === "`" ? "`" : c === "[" ? "]" : null;
    if (close) {
      const end = sql.indexOf(close, i + 1);
      const text = sql.slice(i + 1, end === -1 ? n : end);
      i = end === -1 ? n : end + 1;
      return text;
    }
    const m = /^[\p{L}\p{N}_$]+/u.exec(sql.slice(i, i + 200));
    if (!m) return "";
    i += m[0].length;
    return m[0];
  };
  const first = name().toLowerCase();
  if (first !== "pragma") return { first };
  let pragma = name();
  skip();
  if (sql[i] === ".") {
    i++;
    pragma = name();
  }
  skip();
  return { first, pragma: pragma.toLowerCase(), assigns: sql[i] === "=" };
}

export function checkStatement(db, sql) {
  const head = statementHead(sql);
  if (REFUSED_FIRST_WORDS.has(head.first))
    return { ok: false, kind: "refused", sql, error: `refused: ${head.first.toUpperCase()} is not allowed` };
  if (head.first === "pragma" && !READING_PRAGMAS.has(head.pragma ?? "")) {
    return {
      ok: false,
      kind: "refused",
      sql,
      error: `refused: PRAGMA ${head.pragma || "(none)"} is not a reading pragma (allowed: ${[...READING_PRAGMAS].join(", ")})`,
    };
  }
  let prepared;
  try {
    prepared = prepareLegacy(db, sql.trim().replace(/;\s*$/, ""));
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    return {
      ok: false,
      kind: /more than one statement/i.test(message) ? "refused" : "error",
      sql,
      error: /more than one statement/i.test(message) ? "refused: one statement at a time" : message,
    };
  }
  if (!prepared.statement.readonly)
    return { ok: false, kind: "refused", sql, error: "refused: only read-only statements run here" };
  return { ok: true, sql: prepared.sql, statement: prepared.statement };
}

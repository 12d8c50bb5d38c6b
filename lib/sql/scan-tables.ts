/**
 * A fast scan for the tables an exploratory SQL probe names, used on every `read_query`-like step at ingest
 * (node-sql-parser costs ~0.25 ms a statement; a long trace has hundreds of probes). It tokenises the SQL
 * (strings and comments skipped, quoted identifiers read) and takes the identifier after FROM, JOIN and the
 * commas of a FROM list, dropping CTE names and table-valued functions. Gold and final SQL use
 * extract-tables.ts (EXPLAIN, or the full parser) instead.
 */
import { asciiLower } from "./fold-table";

/**
 * A SQL token: a bare word, a quoted identifier (its text unquoted), a string literal (its value) or punctuation,
 * and where it stands in the text (`start` inclusive, `end` exclusive).
 */
export type Token = { kind: "word" | "ident" | "string" | "punct"; text: string; start?: number; end?: number };

const WORD = /[\p{L}\p{N}_$]+/uy;
const SPACE = /\s+/y;

/** Tokenises SQL in one linear pass; comments are dropped. */
export function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    SPACE.lastIndex = i;
    if (SPACE.test(sql)) {
      i = SPACE.lastIndex;
      continue;
    }
    if (c === "-" && sql[i + 1] === "-") {
      const nl = sql.indexOf("\n", i);
      i = nl === -1 ? sql.length : nl + 1;
      continue;
    }
    if (c === "/" && sql[i + 1] === "*") {
      const end = sql.indexOf("*/", i + 2);
      i = end === -1 ? sql.length : end + 2;
      continue;
    }
    if (c === "'") {
      const end = skip(sql, i, "'");
      out.push({
        kind: "string",
        text: sql
          .slice(i + 1, end - 1)
          .split("''")
          .join("'"),
        start: i,
        end,
      });
      i = end;
      continue;
    }
    if (c === '"' || c === "`") {
      const end = skip(sql, i, c);
      out.push({
        kind: "ident",
        text: sql
          .slice(i + 1, end - 1)
          .split(c + c)
          .join(c),
        start: i,
        end,
      });
      i = end;
      continue;
    }
    if (c === "[") {
      const end = sql.indexOf("]", i);
      const stop = end === -1 ? sql.length : end;
      out.push({ kind: "ident", text: sql.slice(i + 1, stop), start: i, end: Math.min(stop + 1, sql.length) });
      i = stop + 1;
      continue;
    }
    WORD.lastIndex = i;
    if (WORD.test(sql)) {
      out.push({ kind: "word", text: sql.slice(i, WORD.lastIndex), start: i, end: WORD.lastIndex });
      i = WORD.lastIndex;
      continue;
    }
    out.push({ kind: "punct", text: c, start: i, end: i + 1 });
    i++;
  }
  return out;
}

function skip(sql: string, start: number, q: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === q) {
      if (sql[i + 1] === q) i += 2;
      else return i + 1;
    } else i++;
  }
  return sql.length;
}

const CLAUSE_END = new Set([
  "where",
  "group",
  "order",
  "limit",
  "having",
  "union",
  "intersect",
  "except",
  "on",
  "using",
  "join",
  "inner",
  "left",
  "right",
  "full",
  "cross",
  "natural",
  "outer",
  "window",
  "returning",
  "set",
  "values",
]);

export function scanTables(sql: string): string[] {
  const tokens = tokenize(sql);
  const lower = (t: Token | undefined) => (t?.kind === "word" ? t.text.toLowerCase() : undefined);
  const isName = (t: Token | undefined) =>
    t !== undefined && (t.kind === "ident" || (t.kind === "word" && !CLAUSE_END.has(t.text.toLowerCase())));
  const ctes = new Set<string>();
  const found: string[] = [];
  // CTE names: `WITH [RECURSIVE] name [(cols)] AS [[NOT] MATERIALIZED] (` and `, name … AS (`.
  for (let i = 0; i < tokens.length - 1; i++) {
    if (!isName(tokens[i])) continue;
    const prev = tokens[i - 1];
    if (!prev || !(lower(prev) === "with" || lower(prev) === "recursive" || prev.text === ",")) continue;
    let j = i + 1;
    if (tokens[j]?.text === "(") {
      // A column list: names and commas up to the closing parenthesis.
      j++;
      while (j < tokens.length && tokens[j].text !== ")" && (isName(tokens[j]) || tokens[j].text === ",")) j++;
      if (tokens[j]?.text !== ")") continue;
      j++;
    }
    if (lower(tokens[j]) !== "as") continue;
    j++;
    if (lower(tokens[j]) === "not") j++;
    if (lower(tokens[j]) === "materialized") j++;
    if (tokens[j]?.text === "(") ctes.add(asciiLower(tokens[i].text));
  }
  for (let i = 0; i < tokens.length; i++) {
    const kw = lower(tokens[i]);
    if (kw !== "from" && kw !== "join") continue;
    let j = i + 1;
    for (;;) {
      const t = tokens[j];
      if (!isName(t)) break;
      let name = t.text;
      j++;
      if (tokens[j]?.text === "." && isName(tokens[j + 1])) {
        name = tokens[j + 1].text;
        j += 2;
      }
      if (tokens[j]?.text === "(") {
        // A table-valued function such as json_each('[1]') or pragma_table_info('t'): not a table; skip its
        // arguments and go on with the comma list (issue 30: `FROM json_each('[1]'), atom` lost atom).
        let depth = 0;
        for (; j < tokens.length; j++) {
          if (tokens[j].text === "(") depth++;
          else if (tokens[j].text === ")" && --depth === 0) break;
        }
        j++;
      } else if (!ctes.has(asciiLower(name))) found.push(name);
      if (lower(tokens[j]) === "as") j++;
      if (isName(tokens[j]) && tokens[j].text !== ",") j++; // alias
      if (kw === "from" && tokens[j]?.text === ",") {
        j++;
        continue;
      }
      break;
    }
  }
  return [...new Set(found)];
}

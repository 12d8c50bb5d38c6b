/**
 * SQL laid out by sql-formatter (SQLite dialect, keywords as written) before it is shown or diffed, so a diff
 * shows changed clauses rather than changed spacing. Text it cannot parse, or longer than 100 kB, stays as it is.
 */
import { format } from "sql-formatter";

const MAX = 100_000;

export function formatSql(sql: string): string {
  if (sql.length > MAX) return sql;
  try {
    return format(sql, { language: "sqlite", keywordCase: "preserve", linesBetweenQueries: 1 });
  } catch {
    return sql;
  }
}

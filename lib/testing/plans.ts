/**
 * Query plans for tests (issue 36): the statements a piece of code runs, captured through a spy on `Sql`, and each
 * one's plan on its engine, so a test can fail when a page's query walks a whole table. On PostgreSQL a test store is
 * small enough that a sequential scan or a hash join over a whole index wins on cost, so the plan is asked with both
 * disabled: a scan that remains means no index can serve the query.
 */
import type { Param, Sql } from "@/lib/db/sql";

export interface Statement {
  text: string;
  params: readonly Param[];
}

/** Runs `fn` against a spy of `sql` and gives back the statements it ran (reads and writes). */
export async function captureStatements(sql: Sql, fn: (spy: Sql) => Promise<unknown>): Promise<Statement[]> {
  const statements: Statement[] = [];
  const record =
    <R>(f: (text: string, params?: readonly Param[]) => Promise<R>) =>
    (text: string, params: readonly Param[] = []) => {
      statements.push({ text, params });
      return f(text, params);
    };
  const spy: Sql = {
    ...sql,
    compiled: {
      all: record((t, p) => sql.compiled.all(t, p)),
      get: record((t, p) => sql.compiled.get(t, p)),
      run: record((t, p) => sql.compiled.run(t, p)),
    },
  };
  await fn(spy);
  return statements;
}

/** A statement's plan, as text lines. */
export async function planOf(sql: Sql, s: Statement): Promise<string> {
  return sql.transaction(async (tx) => {
    if (sql.dialect === "postgres") {
      // and a join by hashing a whole table's index is no way in either: each table is reached by its keys, or not
      await tx.exec(
        "SET LOCAL enable_seqscan = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off",
      );
      return (await tx.compiled.all<Record<string, string>>(`EXPLAIN ${s.text}`, s.params))
        .map((r) => Object.values(r)[0])
        .join("\n");
    }
    return (await tx.compiled.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${s.text}`, s.params))
      .map((r) => r.detail)
      .join("\n");
  });
}

/**
 * The tables a plan walks whole: SQLite's `SCAN <table>` (with an index or without: a scan is every row, a range of
 * an index is a `SEARCH`), PostgreSQL's `Seq Scan on <table>` or an index scan with no `Index Cond`. A table's alias
 * names it through `aliases`.
 */
export function fullScans(plan: string, tables: readonly string[], aliases: Record<string, string> = {}): string[] {
  const found = new Set<string>();
  const lines = plan.split("\n");
  const add = (name: string | undefined) => {
    const table = name ? (aliases[name] ?? name) : undefined;
    if (table && tables.includes(table)) found.add(table);
  };
  lines.forEach((line, i) => {
    const lite = /^\s*SCAN (\w+)/.exec(line);
    if (lite) return add(lite[1]);
    const seq = /Seq Scan on (\w+)(?: (\w+))?/.exec(line);
    if (seq) return add(seq[2] && seq[2] !== "" ? (aliases[seq[2]] ? seq[2] : seq[1]) : seq[1]);
    const index = /Index (?:Only )?Scan(?: Backward)? using \w+ on (\w+)/.exec(line);
    if (index) {
      // the node's own lines: until the next node (a line with "->") or the end
      const own: string[] = [];
      for (let j = i + 1; j < lines.length && !lines[j].includes("->"); j++) own.push(lines[j]);
      if (!own.some((l) => /Index Cond/.test(l))) add(index[1]);
    }
  });
  return [...found];
}

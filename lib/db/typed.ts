/**
 * Typed, dialect-neutral queries (issue 32): Kysely builds each statement from the store's schema (the drizzle tables of
 * schema.ts, as Kysely table types through `Kyselify`), so a column that does not exist, or a value of the wrong
 * type, fails the type check instead of a request. Kysely only *compiles* here — with the SQLite or the PostgreSQL
 * compiler, chosen by the store's engine — and the statement runs through the store's own `Sql` handle (its
 * connections, transactions and number parsing), without the `?` and alias rewriting of `Sql.all`: the PostgreSQL
 * compiler writes `$n` placeholders and quotes every name itself.
 *
 * Every statement of the store is built here. What Kysely's builder cannot say — SQLite's and PostgreSQL's own
 * features (FTS5, `tsvector`, the catalogues), names known only at run time (`metron export` walks every table) —
 * is written with Kysely's `sql` template (`raw` below): its values become the engine's own placeholders and its
 * names are quoted by the compiler, so nothing is rewritten there either.
 */
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  sql as raw,
  type ColumnType,
  type Compilable,
  type ExpressionBuilder,
  type Insertable,
  type InsertQueryBuilder,
  type InsertResult,
  type CompiledQuery,
  type RawBuilder,
  type Dialect as KyselyDialect,
} from "kysely";
import type { Table as DrizzleTable } from "drizzle-orm";
import type { Kyselify } from "drizzle-orm/kysely";
import type * as schema from "./schema";
import type { Dialect, Param, Sql } from "./sql";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import { fromRow } from "./rows";

/**
 * A value as the engine stores and returns it. Drizzle's column modes decode on read (an integer `boolean`, a text
 * `json`), but these statements bypass drizzle, so a raw row holds 0/1 and JSON text: the types say so (the type
 * checker caught the difference on the first port).
 */
type StoredValue<V> = V extends undefined
  ? undefined // an insert may leave out a column with a default
  : V extends boolean
    ? number
    : V extends string | number | bigint | null
      ? V
      : string;
type Stored<T> = {
  [K in keyof T]: T[K] extends ColumnType<infer S, infer I, infer U>
    ? ColumnType<StoredValue<S>, StoredValue<I>, StoredValue<U>>
    : StoredValue<T[K]>;
};
type Table<T extends DrizzleTable> = Stored<Kyselify<T>>;

/** Every table of the store, as Kysely sees it (column names and values as stored). */
export interface Tables {
  runs: Table<typeof schema.runs>;
  uploads: Table<typeof schema.uploads>;
  upload_errors: Table<typeof schema.uploadErrors>;
  traces: Table<typeof schema.traces>;
  steps: Table<typeof schema.steps>;
  blobs: Table<typeof schema.blobs>;
  datasets: Table<typeof schema.datasets>;
  databases: Table<typeof schema.databases>;
  questions: Table<typeof schema.questions>;
  gold_results: Table<typeof schema.goldResults>;
  run_tool_counts: Table<typeof schema.runToolCounts>;
  jobs: Table<typeof schema.jobs>;
  sweeps: Table<typeof schema.sweeps>;
  run_changes: Table<typeof schema.runChanges>;
  experiments: Table<typeof schema.experiments>;
  search_indexed: Table<typeof schema.searchIndexed>;
  labels: Table<typeof schema.labels>;
  notes: Table<typeof schema.notes>;
  run_causes: Table<typeof schema.runCauses>;
  otlp_spans: Table<typeof schema.otlpSpans>;
  otlp_groups: Table<typeof schema.otlpGroups>;
  run_totals: Table<typeof schema.runTotals>;
  derived_cache: Table<typeof schema.derivedCache>;
  scores: Table<typeof schema.scores>;
  /**
   * The search index's documents (lib/search): an FTS5 table on SQLite, a table with a `tsvector` on PostgreSQL,
   * created by hand-written migrations, so not in the drizzle schema.
   */
  search_docs: { rowid: number; trace_id: string; seq: number | null; field: string };
}

/** A compiler that never connects: statements are compiled here and run through `Sql`. */
function compilerOnly(engine: Dialect): KyselyDialect {
  return engine === "postgres"
    ? {
        createAdapter: () => new PostgresAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new PostgresIntrospector(db),
        createQueryCompiler: () => new PostgresQueryCompiler(),
      }
    : {
        createAdapter: () => new SqliteAdapter(),
        createDriver: () => new DummyDriver(),
        createIntrospector: (db) => new SqliteIntrospector(db),
        createQueryCompiler: () => new SqliteQueryCompiler(),
      };
}

const builders: Record<Dialect, Kysely<Tables>> = {
  sqlite: new Kysely<Tables>({ dialect: compilerOnly("sqlite") }),
  postgres: new Kysely<Tables>({ dialect: compilerOnly("postgres") }),
};

/** The query builder of the store's engine. */
export function qb(sql: Pick<Sql, "dialect">): Kysely<Tables> {
  return builders[sql.dialect];
}

/** A built query, or a `raw` template (compiled with the store's engine). */
export type Query<R> = Compilable<R> | RawBuilder<R>;

/** A query compiled for the store's engine: its text and its parameters. */
export function compile<R>(sql: Sql, query: Query<R>): CompiledQuery<R> {
  return isRawBuilder(query) ? query.compile(builders[sql.dialect]) : query.compile();
}

function isRawBuilder<R>(query: Query<R>): query is RawBuilder<R> {
  return (query as RawBuilder<R>).isRawBuilder === true;
}

/** Runs a built query through the store; its rows, typed as the query selects them. */
export async function many<R>(sql: Sql, query: Query<R>): Promise<R[]> {
  const { sql: text, parameters } = compile(sql, query);
  return sql.compiled.all<R>(text, parameters as readonly Param[]);
}

/** The first row of a built query, or undefined. */
export async function one<R>(sql: Sql, query: Query<R>): Promise<R | undefined> {
  const { sql: text, parameters } = compile(sql, query);
  return sql.compiled.get<R>(text, parameters as readonly Param[]);
}

/** Runs a built INSERT, UPDATE or DELETE (or a `raw` statement) through the store; how many rows it changed. */
export async function write(sql: Sql, query: Query<unknown>): Promise<{ changes: number }> {
  const { sql: text, parameters } = compile(sql, query);
  return sql.compiled.run(text, parameters as readonly Param[]);
}

/** A query's rows as arrays, streamed (Sql.rows: on PostgreSQL inside a transaction). */
export function streamRows(sql: Sql, query: Query<unknown>): AsyncIterable<unknown[]> {
  const { sql: text, parameters } = compile(sql, query);
  return sql.rows(text, parameters as readonly Param[]);
}

/** `count(*) AS n`, for `select(countN)`. */
export function countN<DB, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>) {
  return eb.fn.countAll<number>().as("n");
}

/** The `n` of a built query that selects `countN` (0 when it gives no row). */
export async function count(sql: Sql, query: Query<{ n: number | string | bigint }>): Promise<number> {
  return Number((await one(sql, query))?.n ?? 0);
}

/**
 * Inserts rows into a table, many per statement (one round trip per batch on PostgreSQL), each batch under both
 * engines' parameter limits (SQLite 32,766; PostgreSQL 65,535). Every row must name the same columns.
 */
export async function insertRows<T extends keyof Tables & string>(
  sql: Sql,
  table: T,
  rows: readonly Insertable<Tables[T]>[],
): Promise<void> {
  if (!rows.length) return;
  const perBatch = Math.max(1, Math.min(500, Math.floor(30_000 / Object.keys(rows[0]).length)));
  for (let i = 0; i < rows.length; i += perBatch)
    await write(
      sql,
      qb(sql)
        .insertInto(table)
        .values(rows.slice(i, i + perBatch) as Insertable<Tables[T]>[]),
    );
}

/** A column of a table, by its stored name. */
export type Column<T extends keyof Tables> = keyof Tables[T] & string;

/** How an INSERT ends (ON CONFLICT, RETURNING): a module-level function, so that its statements are cached by it. */
export type InsertEnd<T extends keyof Tables & string> = (
  q: InsertQueryBuilder<Tables, T, InsertResult>,
) => Compilable<unknown>;

const plainInsert = <T extends keyof Tables & string>(q: InsertQueryBuilder<Tables, T, InsertResult>) => q;
const insertTexts = new WeakMap<object, Map<string, string>>();

/**
 * The text of an INSERT of `rows` rows of `columns` (then `end`), compiled by Kysely for the engine once per shape:
 * its parameters are the rows' values, row after row, in column order. For the ingest's writers, whose rows are
 * arrays of values in a fixed column order: the columns are checked against the schema, and nothing is compiled
 * per trace.
 */
export function insertText<T extends keyof Tables & string>(
  dialect: Dialect,
  table: T,
  columns: readonly Column<T>[],
  rows = 1,
  end: InsertEnd<T> = plainInsert,
): string {
  let cache = insertTexts.get(end);
  if (!cache) insertTexts.set(end, (cache = new Map()));
  const key = `${dialect}|${table}|${columns.join(",")}|${rows}`;
  let text = cache.get(key);
  if (text === undefined) {
    // Placeholder values: only the statement's shape is compiled here (a value never makes Kysely drop a column).
    const row = Object.fromEntries(columns.map((c) => [c, 0])) as Insertable<Tables[T]>;
    text = end(builders[dialect].insertInto(table).values(Array(rows).fill(row))).compile().sql;
    if (cache.size > 200) cache.clear();
    cache.set(key, text);
  }
  return text;
}

/**
 * Inserts rows given as arrays in `columns` order, many per statement (under both engines' parameter limits);
 * what the statements return (with a RETURNING `end`).
 */
export async function insertArrays<T extends keyof Tables & string>(
  sql: Sql,
  table: T,
  columns: readonly Column<T>[],
  rows: readonly (readonly unknown[])[],
  end: InsertEnd<T> = plainInsert,
): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  const per = Math.max(1, Math.min(1000, Math.floor(30_000 / columns.length)));
  for (let i = 0; i < rows.length; i += per) {
    const chunk = rows.slice(i, i + per);
    const text = insertText(sql.dialect, table, columns, chunk.length, end);
    out.push(...(await sql.compiled.all(text, chunk.flat() as Param[])));
  }
  return out;
}

/** Kysely's `sql` template, for what the builder cannot say (see the header). */
export { raw };

/** A text column ordered by code point on both engines (PostgreSQL's default collation may not be). */
export function binary(sql: Sql, column: string): RawBuilder<string> {
  return sql.dialect === "postgres" ? raw<string>`${raw.ref(column)} collate "C"` : raw<string>`${raw.ref(column)}`;
}

/**
 * The first row of a built query over one table, decoded into the app's type for it (drizzle's `$inferSelect`: JSON
 * parsed, 0/1 as booleans, camelCase keys), or undefined.
 */
export async function decoded<T extends SQLiteTable>(
  sql: Sql,
  table: T,
  query: Compilable<Record<string, unknown>>,
): Promise<T["$inferSelect"] | undefined> {
  const row = await one(sql, query);
  return row ? fromRow(table, row) : undefined;
}

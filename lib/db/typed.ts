/**
 * Typed, dialect-neutral queries (issue 32): Kysely builds each statement from the store's schema (the drizzle tables of
 * schema.ts, as Kysely table types through `Kyselify`), so a column that does not exist, or a value of the wrong
 * type, fails the type check instead of a request. Kysely only *compiles* here — with the SQLite or the PostgreSQL
 * compiler, chosen by the store's engine — and the statement runs through the store's own `Sql` handle (its
 * connections, transactions and number parsing), without the `?` and alias rewriting of `Sql.all`: the PostgreSQL
 * compiler writes `$n` placeholders and quotes every name itself.
 *
 * Query files move to it one at a time (lib/db/queries/runs.ts first); what is not yet ported still goes through
 * `Sql.all` and its rewriting.
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
type StoredValue<V> = V extends boolean ? number : V extends string | number | bigint | null ? V : string;
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
  rerun_jobs: Table<typeof schema.rerunJobs>;
  sweeps: Table<typeof schema.sweeps>;
  run_changes: Table<typeof schema.runChanges>;
  experiments: Table<typeof schema.experiments>;
  search_indexed: Table<typeof schema.searchIndexed>;
  labels: Table<typeof schema.labels>;
  notes: Table<typeof schema.notes>;
  run_causes: Table<typeof schema.runCauses>;
  otlp_spans: Table<typeof schema.otlpSpans>;
  otlp_groups: Table<typeof schema.otlpGroups>;
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
export function qb(sql: Sql): Kysely<Tables> {
  return builders[sql.dialect];
}

/** Runs a built query through the store; its rows, typed as the query selects them. */
export async function many<R>(sql: Sql, query: Compilable<R>): Promise<R[]> {
  const { sql: text, parameters } = query.compile();
  return sql.compiled.all<R>(text, parameters as readonly Param[]);
}

/** The first row of a built query, or undefined. */
export async function one<R>(sql: Sql, query: Compilable<R>): Promise<R | undefined> {
  const { sql: text, parameters } = query.compile();
  return sql.compiled.get<R>(text, parameters as readonly Param[]);
}

/** Runs a built INSERT, UPDATE or DELETE through the store; how many rows it changed. */
export async function write(sql: Sql, query: Compilable<unknown>): Promise<{ changes: number }> {
  const { sql: text, parameters } = query.compile();
  return sql.compiled.run(text, parameters as readonly Param[]);
}

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

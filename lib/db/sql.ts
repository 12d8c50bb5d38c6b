/**
 * The store behind one asynchronous interface (issue 18): the embedded SQLite file by default, PostgreSQL when
 * `DATABASE_URL` is a `postgres://` URL. Statements reach it compiled for its engine already — by Kysely, from the
 * schema's table types (lib/db/typed.ts) — and run as they are: nothing here rewrites SQL text. Integers and
 * numerics come back as JavaScript numbers on both engines (PostgreSQL's `bigint`, `numeric` and `count()` would
 * otherwise arrive as strings).
 *
 * Transactions are callbacks: `await sql.transaction(async (tx) => …)` commits when the callback resolves and rolls
 * back when it throws. On SQLite they are serialised on the one connection (BEGIN IMMEDIATE); on PostgreSQL each
 * takes a pooled connection of its own.
 */
import type Database from "better-sqlite3";
import { AsyncLocalStorage } from "node:async_hooks";
import { beginImmediate } from "./write-lock";

export type Dialect = "sqlite" | "postgres";
export type Param = string | number | bigint | null | boolean | Buffer;
export type Row = Record<string, unknown>;

export interface Sql {
  readonly dialect: Dialect;
  /** A name for caches keyed by store (the file, or the URL without its password). */
  readonly name: string;
  /** SQLite only: the connection itself, for the paths that keep their synchronous fast code (ingest). */
  readonly connection?: Database.Database;
  /** Several statements, no parameters (DDL, session settings). */
  exec(text: string): Promise<void>;
  /** Runs `fn` in one transaction; `readOnly` takes a consistent snapshot without holding writers back. */
  transaction<T>(fn: (tx: Sql) => Promise<T>, options?: { readOnly?: boolean }): Promise<T>;
  /**
   * A compiled query's rows as arrays, in batches, without holding them all (integers past 2^53 as BigInt on
   * SQLite). On PostgreSQL it needs a transaction (it reads through a cursor).
   */
  rows(text: string, params?: readonly Param[]): AsyncIterable<unknown[]>;
  /**
   * Statements compiled for this engine (lib/db/typed.ts: `many`, `one`, `write` build and compile them): run as
   * they are, nothing rewritten. A statement that returns no rows gives none from `all` on both engines.
   */
  readonly compiled: {
    all<T = Row>(text: string, params?: readonly Param[]): Promise<T[]>;
    get<T = Row>(text: string, params?: readonly Param[]): Promise<T | undefined>;
    run(text: string, params?: readonly Param[]): Promise<{ changes: number }>;
  };
  close(): Promise<void>;
}

/** What SQLite's `CAST(x AS INTEGER) = x` accepts: an integer without leading zeros, within bigint. */
export const PLAIN_INTEGER = "^(0|-?[1-9][0-9]{0,17})$";

/**
 * The SQLite store's connection behind `Sql`. Its statements run synchronously; transactions take turns, and the
 * write lock is awaited without blocking the event loop. With `transactionConnection` (the server's shared
 * connection), each transaction runs on a connection of its own, so its uncommitted rows stay invisible to the
 * pages that read meanwhile.
 */
/**
 * The wrappers whose transaction the current async context is inside. One for the whole process (issue 35): on
 * Node 20 every enabled `AsyncLocalStorage` is visited on every promise the process creates, so one per wrapper
 * (a wrapper per transaction, per job) made every await slower with the server's age.
 */
const openTransactions = new AsyncLocalStorage<ReadonlySet<Sql>>();

export function sqliteSql(
  db: Database.Database,
  options: { transactionConnection?: () => Database.Database } = {},
): Sql {
  let queue: Promise<unknown> = Promise.resolve();
  const cache = new Map<string, Database.Statement>();
  const prepare = (text: string) => {
    let s = cache.get(text);
    if (!s) {
      s = db.prepare(text);
      if (cache.size > 500) cache.clear();
      cache.set(text, s);
    }
    return s;
  };
  const args = (params: readonly Param[]) => params.map((p) => (typeof p === "boolean" ? (p ? 1 : 0) : p));
  // Transaction connections (the server's): a few idle ones are kept, with their prepared statements, instead of
  // opening a connection per transaction. An idle WAL connection holds no snapshot.
  const idle: Sql[] = [];
  const self: Sql = {
    dialect: "sqlite",
    name: db.name,
    connection: db,
    exec: async (text: string) => void db.exec(text),
    compiled: {
      async all<T>(text: string, params: readonly Param[] = []) {
        const statement = prepare(text);
        // A statement that returns no rows (an INSERT without RETURNING) runs and gives none, as on PostgreSQL.
        if (!statement.reader) {
          statement.run(...args(params));
          return [];
        }
        return statement.all(...args(params)) as T[];
      },
      async get<T>(text: string, params: readonly Param[] = []) {
        const statement = prepare(text);
        if (!statement.reader) {
          statement.run(...args(params));
          return undefined;
        }
        return statement.get(...args(params)) as T | undefined;
      },
      async run(text: string, params: readonly Param[] = []) {
        return { changes: prepare(text).run(...args(params)).changes };
      },
    },
    transaction<T>(fn: (tx: Sql) => Promise<T>, txOptions?: { readOnly?: boolean }): Promise<T> {
      const open = openTransactions.getStore();
      if (open?.has(self)) return fn(self); // nested: part of the open transaction
      if (options.transactionConnection) {
        const own = idle.pop() ?? sqliteSql(options.transactionConnection());
        return own.transaction(fn, txOptions).finally(() => {
          if (idle.length < IDLE_TRANSACTION_CONNECTIONS && own.connection?.open) idle.push(own);
          else return own.close();
        });
      }
      const next = queue.then(() =>
        openTransactions.run(new Set(open).add(self), async () => {
          if (txOptions?.readOnly) db.exec("BEGIN");
          else await beginImmediate(db);
          try {
            const out = await fn(self);
            db.exec("COMMIT");
            return out;
          } catch (e) {
            if (db.inTransaction) db.exec("ROLLBACK");
            throw e;
          }
        }),
      );
      queue = next.catch(() => undefined);
      return next;
    },
    async *rows(text: string, params: readonly Param[] = []) {
      const stmt = db.prepare(text).raw(true);
      stmt.safeIntegers(true);
      yield* stmt.iterate(...args(params)) as Iterable<unknown[]>;
    },
    async close() {
      for (const own of idle.splice(0)) await own.close();
      db.close();
    },
  };
  return self;
}

const IDLE_TRANSACTION_CONNECTIONS = 2;

interface PgQueryable {
  query(
    q: string | { text: string; values?: unknown[]; rowMode?: "array" },
    values?: unknown[],
  ): Promise<{ rows: Row[]; rowCount: number | null }>;
}

/** A PostgreSQL store behind `Sql`: a pool of connections (`METRON_PG_POOL`, default 10). */
export async function postgresSql(url: string, options: { max?: number } = {}): Promise<Sql> {
  const pg = (await import("pg")).default;
  // bigint (20), numeric (1700): numbers, as SQLite gives them. Counts and sums of bigint are numeric in PostgreSQL.
  pg.types.setTypeParser(20, (v: string) => Number(v));
  pg.types.setTypeParser(1700, (v: string) => Number(v));
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? (Number(process.env.METRON_PG_POOL ?? 10) || 10),
  });
  // An idle pooled connection the server ends (a restart, an administrator's terminate, a dropped test database)
  // emits 'error' on the pool; unheard, it would end the process. The pool drops that connection and opens another.
  pool.on("error", () => undefined);
  let cursors = 0;
  const name = url.replace(/:[^:@/]*@/, ":***@");
  const over = (q: PgQueryable, close: () => Promise<void>): Sql => {
    const self: Sql = {
      dialect: "postgres",
      name,
      async exec(text: string) {
        await q.query(text);
      },
      compiled: {
        async all<T>(text: string, params: readonly Param[] = []) {
          return (await q.query(text, [...params])).rows as T[];
        },
        async get<T>(text: string, params: readonly Param[] = []) {
          return (await q.query(text, [...params])).rows[0] as T | undefined;
        },
        async run(text: string, params: readonly Param[] = []) {
          return { changes: (await q.query(text, [...params])).rowCount ?? 0 };
        },
      },
      async transaction<T>(fn: (tx: Sql) => Promise<T>, options?: { readOnly?: boolean }): Promise<T> {
        if (q !== pool) return fn(self); // nested: part of the open transaction
        const client = await pool.connect();
        try {
          await client.query(options?.readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN");
          const out = await fn(over(client as unknown as PgQueryable, async () => {}));
          await client.query("COMMIT");
          return out;
        } catch (e) {
          await client.query("ROLLBACK").catch(() => undefined);
          throw e;
        } finally {
          client.release();
        }
      },
      async *rows(text: string, params: readonly Param[] = []) {
        if (q === pool) throw new Error("Sql.rows on PostgreSQL reads through a cursor: call it in a transaction");
        const cursor = `metron_rows_${++cursors}`;
        await q.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${text}`, [...params]);
        try {
          for (;;) {
            const batch = await q.query({ text: `FETCH 1000 FROM ${cursor}`, rowMode: "array" });
            if (!batch.rows.length) break;
            yield* batch.rows as unknown as unknown[][];
          }
        } finally {
          await q.query(`CLOSE ${cursor}`).catch(() => undefined);
        }
      },
      close,
    };
    return self;
  };
  return over(pool as unknown as PgQueryable, () => pool.end());
}

export function isPostgresUrl(url: string | undefined): url is string {
  return !!url && /^postgres(ql)?:\/\//.test(url);
}

const wrapped = new WeakMap<Database.Database, Sql>();

/** Whether a value is a `Sql` store (not a better-sqlite3 connection, nor drizzle's database object). */
export function isSql(x: unknown): x is Sql {
  return typeof x === "object" && x !== null && typeof (x as Sql).rows === "function" && "compiled" in x;
}

/**
 * A SQLite connection as `Sql` (tests, benches, a CLI command's own connection), wrapped once per connection: one
 * transaction queue each. Code below the edges takes `Sql` only.
 */
export function asSql(db: Database.Database): Sql {
  let sql = wrapped.get(db);
  if (!sql) wrapped.set(db, (sql = sqliteSql(db)));
  return sql;
}

/** Wraps a connection with options (the server's shared one), so that `asSql` of it gives this wrapper. */
export function wrapConnection(
  db: Database.Database,
  options: { transactionConnection?: () => Database.Database },
): Sql {
  const sql = sqliteSql(db, options);
  wrapped.set(db, sql);
  return sql;
}

/** The same store under a handle whose `close` leaves it open (one shared pool handed to several users). */
export function sharedHandle(sql: Sql): Sql {
  return { ...sql, close: async () => {} };
}

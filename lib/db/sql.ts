/**
 * The store behind one asynchronous, dialect-neutral interface (issue 18): the embedded SQLite file by default,
 * PostgreSQL when `DATABASE_URL` is a `postgres://` URL. Code written against `Sql` runs on both:
 *
 * - statements use `?` placeholders (rewritten to `$1…` for PostgreSQL, outside quotes and comments);
 * - camelCase aliases (`AS datasetId`) keep their case on PostgreSQL, which would otherwise fold them;
 * - what differs between the engines (JSON paths, string aggregation) comes from `sql.d`, the dialect's fragments;
 * - integers and numerics come back as JavaScript numbers on both (PostgreSQL's `bigint`, `numeric` and `count()`
 *   would otherwise arrive as strings).
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

/** SQL fragments that differ between the engines. Paths are dot-separated keys: `"overhead.cost_usd"`. */
export interface DialectSql {
  /** A JSON member as SQL text (or NULL). */
  jsonText(column: string, path: string): string;
  /** A JSON member as a number (or NULL). */
  jsonNumber(column: string, path: string): string;
  /** A JSON member as SQLite's `json_extract` gives it to arithmetic and truth tests: true → 1, false → 0. */
  jsonValue(column: string, path: string): string;
  /** `group_concat(expr, sep)` / `string_agg(expr, sep)` over text. */
  groupConcat(expr: string, separator: string): string;
  /** A character by code point (`char(1)` / `chr(1)`). */
  char(code: number): string;
  /** Text ordered by code point, as SQLite orders it (PostgreSQL's default collation may not). */
  binary(expr: string): string;
  /** Text compared without case (ASCII), as SQLite's NOCASE. */
  nocase(expr: string): string;
  /** Whether a text is an integer written plainly ("12", not "012" or "1e3"). */
  isInteger(expr: string): string;
  /** That integer (NULL for other text). */
  asInteger(expr: string): string;
  /** `expr IN` the elements of a JSON array given as one parameter. */
  inJsonArray(expr: string): string;
  /** The distinct values of a text column, comma-separated (NULL when none). */
  distinctList(expr: string): string;
}

export interface Sql {
  readonly dialect: Dialect;
  readonly d: DialectSql;
  /** A name for caches keyed by store (the file, or the URL without its password). */
  readonly name: string;
  /** SQLite only: the connection itself, for the paths that keep their synchronous fast code (ingest). */
  readonly connection?: Database.Database;
  all<T = Row>(text: string, params?: readonly Param[]): Promise<T[]>;
  get<T = Row>(text: string, params?: readonly Param[]): Promise<T | undefined>;
  run(text: string, params?: readonly Param[]): Promise<{ changes: number }>;
  /** Several statements, no parameters (DDL, session settings). */
  exec(text: string): Promise<void>;
  /** Runs `fn` in one transaction; `readOnly` takes a consistent snapshot without holding writers back. */
  transaction<T>(fn: (tx: Sql) => Promise<T>, options?: { readOnly?: boolean }): Promise<T>;
  /**
   * A query's rows as arrays, in batches, without holding them all (integers past 2^53 as BigInt on SQLite). On
   * PostgreSQL it needs a transaction (it reads through a cursor).
   */
  rows(text: string, params?: readonly Param[]): AsyncIterable<unknown[]>;
  /** Statements compiled for this engine already (lib/db/typed.ts): run as they are, nothing rewritten. */
  readonly compiled: {
    all<T = Row>(text: string, params?: readonly Param[]): Promise<T[]>;
    get<T = Row>(text: string, params?: readonly Param[]): Promise<T | undefined>;
    run(text: string, params?: readonly Param[]): Promise<{ changes: number }>;
  };
  close(): Promise<void>;
}

const sqliteDialect: DialectSql = {
  jsonText: (c, p) => `json_extract(${c}, '$.${p}')`,
  jsonNumber: (c, p) => `json_extract(${c}, '$.${p}')`,
  jsonValue: (c, p) => `json_extract(${c}, '$.${p}')`,
  groupConcat: (e, s) => `group_concat(${e}, ${s})`,
  char: (n) => `char(${n})`,
  binary: (e) => e,
  nocase: (e) => `${e} COLLATE NOCASE`,
  isInteger: (e) => `(CAST(${e} AS INTEGER) = ${e})`,
  asInteger: (e) => `CAST(${e} AS INTEGER)`,
  inJsonArray: (e) => `${e} IN (SELECT value FROM json_each(?))`,
  distinctList: (e) => `group_concat(DISTINCT ${e})`,
};

/** What SQLite's `CAST(x AS INTEGER) = x` accepts: an integer without leading zeros, within bigint. */
export const PLAIN_INTEGER = "^(0|-?[1-9][0-9]{0,17})$";

const pgPath = (p: string) => `'{${p.split(".").join(",")}}'`;

const postgresDialect: DialectSql = {
  jsonText: (c, p) => `((${c})::jsonb #>> ${pgPath(p)})`,
  jsonNumber: (c, p) =>
    `(CASE WHEN jsonb_typeof((${c})::jsonb #> ${pgPath(p)}) = 'number' THEN ((${c})::jsonb #>> ${pgPath(p)})::double precision END)`,
  jsonValue: (c, p) =>
    `(CASE jsonb_typeof((${c})::jsonb #> ${pgPath(p)}) WHEN 'number' THEN ((${c})::jsonb #>> ${pgPath(p)})::double precision ` +
    `WHEN 'boolean' THEN (CASE WHEN ((${c})::jsonb #>> ${pgPath(p)}) = 'true' THEN 1 ELSE 0 END) END)`,
  groupConcat: (e, s) => `string_agg(${e}, ${s})`,
  char: (n) => `chr(${n})`,
  binary: (e) => `${e} COLLATE "C"`,
  nocase: (e) => `lower(${e})`,
  isInteger: (e) => `(${e} ~ '${PLAIN_INTEGER}')`,
  asInteger: (e) => `(CASE WHEN ${e} ~ '${PLAIN_INTEGER}' THEN (${e})::bigint END)`,
  inJsonArray: (e) => `${e} IN (SELECT jsonb_array_elements_text(?::jsonb))`,
  distinctList: (e) => `string_agg(DISTINCT ${e}, ',')`,
};

export const dialects: Record<Dialect, DialectSql> = { sqlite: sqliteDialect, postgres: postgresDialect };

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
    d: sqliteDialect,
    name: db.name,
    connection: db,
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
    async exec(text: string) {
      db.exec(text);
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
    compiled: {
      all: <T>(text: string, params?: readonly Param[]) => self.all<T>(text, params),
      get: <T>(text: string, params?: readonly Param[]) => self.get<T>(text, params),
      run: (text: string, params?: readonly Param[]) => self.run(text, params),
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

/** Applies `fn` to the code of a statement: not to string literals, quoted names, line or block comments. */
function mapCode(text: string, fn: (code: string) => string): string {
  let out = "";
  let code = "";
  const literal = (stop: number, i: number) => {
    out += fn(code) + text.slice(i, stop);
    code = "";
    return stop - 1;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      i = literal(end < 0 ? text.length : end + 1, i);
    } else if (c === "-" && text[i + 1] === "-") {
      const end = text.indexOf("\n", i);
      i = literal(end < 0 ? text.length : end, i);
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = literal(end < 0 ? text.length : end + 2, i);
    } else code += c;
  }
  return out + fn(code);
}

/** `?` → `$n` outside string literals, quoted names and comments. */
export function numberPlaceholders(text: string): string {
  let n = 0;
  return mapCode(text, (code) => code.replace(/\?/g, () => `$${++n}`));
}

/**
 * PostgreSQL folds unquoted names to lower case: quote camelCase aliases (after `AS`, in any case) so rows keep the
 * keys the code reads. Literals and comments are left as they are.
 */
export function quoteAliases(text: string): string {
  return mapCode(text, (code) =>
    code.replace(/\b(as)\s+([a-z][a-z0-9_]*[A-Z][A-Za-z0-9_]*)\b/gi, (m, as: string, name: string) =>
      /[A-Z]/.test(name) && /^[a-z]/.test(name) ? `${as} "${name}"` : m,
    ),
  );
}

const translated = new Map<string, string>();
export function toPostgres(text: string): string {
  let t = translated.get(text);
  if (t === undefined) {
    t = numberPlaceholders(quoteAliases(text));
    if (translated.size > 2000) translated.clear();
    translated.set(text, t);
  }
  return t;
}

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
    const query = (text: string, params: readonly Param[] = []) => q.query(toPostgres(text), [...params]);
    const self: Sql = {
      dialect: "postgres",
      d: postgresDialect,
      name,
      async all<T>(text: string, params?: readonly Param[]) {
        return (await query(text, params)).rows as T[];
      },
      async get<T>(text: string, params?: readonly Param[]) {
        return (await query(text, params)).rows[0] as T | undefined;
      },
      async run(text: string, params?: readonly Param[]) {
        return { changes: (await query(text, params)).rowCount ?? 0 };
      },
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
        await q.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${toPostgres(text)}`, [...params]);
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
  return typeof x === "object" && x !== null && typeof (x as Sql).rows === "function" && "d" in x;
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

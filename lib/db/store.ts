/**
 * Which store this process uses, behind `Sql` (lib/db/sql.ts): PostgreSQL when `DATABASE_URL` is a `postgres://`
 * URL, else the SQLite file (`DATABASE_PATH`, default data/metron.db). Both are migrated on open: SQLite from
 * `drizzle/`, PostgreSQL from `drizzle-pg/` (generated from the schema derived from the same description).
 */
import path from "node:path";
import { getDb, migrationsFolder, openConnection, openDb } from "./client";
import { isPostgresUrl, postgresSql, sharedHandle, sqliteSql, wrapConnection, type Sql } from "./sql";

/** The PostgreSQL URL this process uses, or undefined for the SQLite store. */
export function postgresUrl(): string | undefined {
  const url = process.env.DATABASE_URL;
  return isPostgresUrl(url) ? url : undefined;
}

export function pgMigrationsFolder(): string {
  return path.resolve(
    /*turbopackIgnore: true*/ process.env.METRON_MIGRATIONS_PG ?? path.join(process.cwd(), "drizzle-pg"),
  );
}

/**
 * Applies `drizzle-pg/` to a PostgreSQL database. Several processes may start at once (a server and its workers):
 * an advisory lock lets one migrate while the others wait.
 */
export async function migratePostgres(url: string): Promise<void> {
  const pg = (await import("pg")).default;
  const { drizzle } = await import("drizzle-orm/node-postgres");
  const { migrate } = await import("drizzle-orm/node-postgres/migrator");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query("SELECT pg_advisory_lock(hashtext('metron-migrate'))");
    await migrate(drizzle(client), { migrationsFolder: pgMigrationsFolder() });
  } finally {
    await client.query("SELECT pg_advisory_unlock(hashtext('metron-migrate'))").catch(() => undefined);
    await client.end();
  }
}

/** Opens (creating and migrating) a store of its own: the caller closes it. */
export async function openStore(url = postgresUrl()): Promise<Sql> {
  if (url) {
    await migratePostgres(url);
    return postgresSql(url);
  }
  return sqliteSql(openDb().$client);
}

/**
 * How job workers, reruns and background tasks open a store of their own (they close it): a new SQLite connection,
 * or, on PostgreSQL, a handle on the process's one pool (`METRON_PG_POOL` connections) that closing leaves open.
 */
export function storeOpener(): () => Promise<Sql> {
  const url = postgresUrl();
  if (!url) return async () => sqliteSql(openConnection());
  // PostgreSQL: one pool per process, shared (each transaction takes a connection of its own from it).
  return async () => sharedHandle(await getSql());
}

const g = globalThis as unknown as { metronSql?: Promise<Sql> };

/** The process-wide store of pages, route handlers and long-lived loops (on SQLite: the same connection as getDb). */
export function getSql(): Promise<Sql> {
  if (!g.metronSql) {
    const url = postgresUrl();
    g.metronSql = url
      ? migratePostgres(url).then(() => postgresSql(url))
      : // Its transactions run on connections of their own: their uncommitted rows stay invisible to the pages.
        Promise.resolve(wrapConnection(getDb().$client, { transactionConnection: () => openConnection() }));
    g.metronSql.catch(() => (g.metronSql = undefined));
  }
  return g.metronSql;
}

export { migrationsFolder };

/** The store: one better-sqlite3 connection per process (WAL), migrated on open. */
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { positiveNumber } from "@/lib/config/env";
import * as schema from "./schema";

export type Db = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export function databasePath(): string {
  return path.resolve(
    /*turbopackIgnore: true*/ process.env.DATABASE_PATH ?? path.join(process.cwd(), "data", "metron.db"),
  );
}

export function migrationsFolder(): string {
  return path.resolve(/*turbopackIgnore: true*/ process.env.METRON_MIGRATIONS ?? path.join(process.cwd(), "drizzle"));
}

/** A raw connection to a store file. Uploads use their own, so an open transaction is invisible to page reads. */
export function openConnection(file = databasePath()): Database.Database {
  mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file);
  sqlite.pragma("journal_mode = WAL");
  sqlite.pragma("synchronous = NORMAL");
  // Another process writing (a CLI ingest, an evaluation, the server): wait for it instead of failing.
  sqlite.pragma(`busy_timeout = ${positiveNumber("METRON_BUSY_TIMEOUT_MS", 300_000)}`);
  return sqlite;
}

/** Opens (and creates, and migrates) a store file. */
export function openDb(file = databasePath()): Db {
  const sqlite = openConnection(file);
  const db = drizzle(sqlite, { schema }) as Db;
  migrate(db, { migrationsFolder: migrationsFolder() });
  return db;
}

const globalForDb = globalThis as unknown as { metronDb?: Db };

/** The process-wide store used by pages and route handlers. */
export function getDb(): Db {
  if (!globalForDb.metronDb) {
    globalForDb.metronDb = openDb();
    // The pages' connection reads many rows for aggregates: a 64 MB page cache and memory-mapped reads keep them
    // off the read() path. Upload connections keep SQLite's small defaults, so ingest memory stays flat.
    globalForDb.metronDb.$client.pragma("cache_size = -65536");
    globalForDb.metronDb.$client.pragma("mmap_size = 268435456");
  }
  return globalForDb.metronDb;
}

/** Where Metron keeps files beside the store (schema-only databases, indexes): the store's folder. */
export function dataDir(): string {
  return path.dirname(databasePath());
}

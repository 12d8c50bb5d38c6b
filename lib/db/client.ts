/** The store: one better-sqlite3 connection per process (WAL), migrated on open. */
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { migrate } from "drizzle-orm/better-sqlite3/migrator";
import { mkdirSync } from "node:fs";
import path from "node:path";
import { nonNegativeNumber, positiveNumber } from "@/lib/config/env";
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

/**
 * The page size of a store this process creates, in bytes: METRON_SQLITE_PAGE_KB (default 16), a power of two from 1
 * to 64 as SQLite requires. 16 KB pages made a 150 MB ingest's writes 9 % faster than SQLite's default 4 KB, with a
 * store 6 % smaller and reads no slower (docs/benchmarks.md): a step's text rarely fits a 4 KB page, and every overflow
 * page and index split costs a write. A store that exists keeps the page size it was created with (SQLite cannot
 * change it in WAL mode without a rebuild).
 */
export function newStorePageSize(): number {
  const kb = positiveNumber("METRON_SQLITE_PAGE_KB", 16);
  if (kb > 64 || (kb & (kb - 1)) !== 0)
    throw new Error(`METRON_SQLITE_PAGE_KB must be a power of two from 1 to 64 (SQLite's page sizes), got "${kb}"`);
  return kb * 1024;
}

/** A raw connection to a store file. Uploads use their own, so an open transaction is invisible to page reads. */
export function openConnection(file = databasePath()): Database.Database {
  const pageSize = newStorePageSize(); // read before opening: a bad value leaves no file behind
  mkdirSync(path.dirname(file), { recursive: true });
  const sqlite = new Database(file);
  // Takes effect only on a file with no table yet, and only before WAL mode is set; ignored by SQLite otherwise.
  sqlite.pragma(`page_size = ${pageSize}`);
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
    // The pages' connection reads many rows for aggregates. It reads the file through a memory map of up to
    // METRON_SQLITE_MMAP_MB (2,047 MB: SQLite's own ceiling), so the pages it reads stay the kernel's file cache,
    // shared and reclaimable; read into the page cache instead (up to METRON_SQLITE_CACHE_MB), they were copies in
    // the server's own memory: with a 256 MB map, a 100k-trace store (2.8 GB) kept the server's anonymous memory 55 MB
    // higher after a few exports (issue 36). Upload connections keep SQLite's small defaults: ingest memory stays flat.
    // Both are read before the store is opened: a bad value leaves no connection behind without them.
    const cacheKb = positiveNumber("METRON_SQLITE_CACHE_MB", 64) * 1024;
    const mmapBytes = nonNegativeNumber("METRON_SQLITE_MMAP_MB", 2047) * 1024 * 1024;
    const db = openDb();
    db.$client.pragma(`cache_size = -${cacheKb}`);
    db.$client.pragma(`mmap_size = ${mmapBytes}`);
    globalForDb.metronDb = db;
  }
  return globalForDb.metronDb;
}

/** Where Metron keeps files beside the store (schema-only databases, indexes): the store's folder. */
export function dataDir(): string {
  return path.dirname(databasePath());
}

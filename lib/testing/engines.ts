/**
 * Tests that run on both engines: the SQLite store always, PostgreSQL when METRON_TEST_DATABASE_URL names a server
 * (`npm test` starts a private one). `describe.each(ENGINES)` and `engineStore(engine)` give each a fresh store.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openConnection } from "@/lib/db/client";
import { postgresSql, sharedHandle, sqliteSql, type Sql } from "@/lib/db/sql";
import { afterAll, beforeAll } from "vitest";
import { tempDb } from "./db";
import { tempPostgres, testPostgresUrl } from "./postgres";

export type Engine = "SQLite" | "PostgreSQL";
export const ENGINES: Engine[] = ["SQLite", ...(testPostgresUrl ? (["PostgreSQL"] as const) : [])];

export interface EngineStore {
  sql: Sql;
  /** A folder for the files beside the store (schema-only databases, indexes, exports). */
  dir: string;
  /** What a `metron` process needs in its environment to reach the store. */
  env: Record<string, string>;
  /** How workers and reruns open it: a connection of their own (SQLite), a handle on one pool (PostgreSQL). */
  open: () => Sql | Promise<Sql>;
  cleanup: () => Promise<void>;
}

/** A new, migrated store of the engine, and a folder for the files beside it. */
export async function engineStore(engine: Engine): Promise<EngineStore> {
  if (engine === "SQLite") {
    const t = tempDb();
    return {
      sql: t.sql,
      dir: t.dir,
      env: { DATABASE_PATH: t.file },
      open: () => sqliteSql(openConnection(t.file)),
      cleanup: async () => t.cleanup(),
    };
  }
  const pg = await tempPostgres();
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-test-pg-"));
  const pool = await postgresSql(pg.url, { max: 6 }); // the workers' and reruns' pool, as a process has one
  return {
    sql: pg.sql,
    dir,
    env: { DATABASE_URL: pg.url, DATABASE_PATH: path.join(dir, "store.db") },
    open: async () => sharedHandle(pool),
    cleanup: async () => {
      await pool.close();
      await pg.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The engine's store for the tests of a describe block: made (and `setup` run on it) before them, removed after.
 * The object is filled in by then; read it inside tests and hooks.
 */
export function useEngineStore(engine: Engine, setup?: (store: EngineStore) => Promise<unknown>): EngineStore {
  const holder = {} as EngineStore;
  beforeAll(async () => {
    Object.assign(holder, await engineStore(engine));
    await setup?.(holder);
  }, 120_000);
  afterAll(async () => holder.cleanup?.());
  return holder;
}

/**
 * Tests that run on both engines: the SQLite store always, PostgreSQL when METRON_TEST_DATABASE_URL names a server
 * (`npm test` starts a private one). `describe.each(ENGINES)` and `engineStore(engine)` give each a fresh store.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Sql } from "@/lib/db/sql";
import { tempDb } from "./db";
import { tempPostgres, testPostgresUrl } from "./postgres";

export type Engine = "SQLite" | "PostgreSQL";
export const ENGINES: Engine[] = ["SQLite", ...(testPostgresUrl ? (["PostgreSQL"] as const) : [])];

/** A new, migrated store of the engine, and a folder for the files beside it. */
export async function engineStore(engine: Engine): Promise<{ sql: Sql; dir: string; cleanup: () => Promise<void> }> {
  if (engine === "SQLite") {
    const t = tempDb();
    return { sql: t.sql, dir: t.dir, cleanup: async () => t.cleanup() };
  }
  const pg = await tempPostgres();
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-test-pg-"));
  return {
    sql: pg.sql,
    dir,
    cleanup: async () => {
      await pg.cleanup();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
export type EngineStore = Awaited<ReturnType<typeof engineStore>>;

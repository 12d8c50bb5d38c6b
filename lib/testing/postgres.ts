/**
 * PostgreSQL for tests: `METRON_TEST_DATABASE_URL` names a server (`.ci/run` and `npm test` start a private one on
 * this machine, scripts/postgres.mjs); each test file gets a database of its own, migrated, dropped afterwards.
 */
import { randomBytes } from "node:crypto";
import { migratePostgres } from "@/lib/db/store";
import { postgresSql, type Sql } from "@/lib/db/sql";

export const testPostgresUrl = process.env.METRON_TEST_DATABASE_URL;

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (q: (text: string) => Promise<unknown>) => Promise<T>): Promise<T> {
  const pg = (await import("pg")).default;
  const client = new pg.Client({ connectionString: withDatabase(testPostgresUrl!, "postgres") });
  await client.connect();
  try {
    return await fn((text) => client.query(text));
  } finally {
    await client.end();
  }
}

/** A new, migrated PostgreSQL database. */
export async function tempPostgres(): Promise<{ url: string; sql: Sql; cleanup: () => Promise<void> }> {
  if (!testPostgresUrl) throw new Error("METRON_TEST_DATABASE_URL is not set");
  const name = `metron_test_${randomBytes(6).toString("hex")}`;
  await admin((q) => q(`CREATE DATABASE ${name}`));
  const url = withDatabase(testPostgresUrl, name);
  await migratePostgres(url);
  const sql = await postgresSql(url);
  return {
    url,
    sql,
    cleanup: async () => {
      await sql.close();
      await admin((q) => q(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

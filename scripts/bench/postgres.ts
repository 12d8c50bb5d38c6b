/**
 * PostgreSQL for the benches: `METRON_BENCH_DATABASE_URL` names a server, else a private one is started on this
 * machine (scripts/postgres.mjs, as `npm test` does; none when PostgreSQL is not installed, or with
 * METRON_TEST_POSTGRES=off). Each bench gets a new database, dropped when it ends.
 */
export async function benchPostgres(name: string): Promise<{ url: string; drop: () => Promise<void> } | null> {
  let server = process.env.METRON_BENCH_DATABASE_URL;
  if (!server) {
    const { startTestPostgres } = await import("../postgres.mjs");
    server = (await startTestPostgres()) ?? undefined;
  }
  if (!server) return null;
  const pg = (await import("pg")).default;
  const admin = new URL(server);
  admin.pathname = "/postgres";
  const run = async (sql: string) => {
    const c = new pg.Client({ connectionString: admin.toString() });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  const db = `metron_bench_${name}`;
  await run(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
  await run(`CREATE DATABASE ${db}`);
  const url = new URL(server);
  url.pathname = `/${db}`;
  return { url: url.toString(), drop: () => run(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`) };
}

// Runs one query on a PostgreSQL database and prints its rows as JSON (the e2e tests read their store between steps,
// synchronously, through e2e/store.ts). Usage: node e2e/pg-query.mjs URL SQL [PARAMS_JSON]
import pg from "pg";

const [url, text, params = "[]"] = process.argv.slice(2);
pg.types.setTypeParser(20, Number);
pg.types.setTypeParser(1700, Number);
const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  let n = 0;
  const res = await client.query(
    // As lib/db/sql.ts does: numbered parameters, and camelCase aliases quoted so that they keep their case.
    text.replace(/\bAS\s+([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)\b/g, 'AS "$1"').replace(/\?/g, () => `$${++n}`),
    JSON.parse(params),
  );
  process.stdout.write(JSON.stringify(res.rows ?? []));
} finally {
  await client.end();
}

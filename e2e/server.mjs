// Playwright's web servers: a fresh store under e2e/.store, seeded through the real CLI ingest, then `next start`.
// With --secure: a second server on its own store (the simulated demo only) that requires access tokens.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeSeedLines } from "./fixtures/make-traces.mjs";
import { READ_TOKEN, WRITE_TOKEN } from "./secure.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const port = process.argv[2] ?? "3100";
const secure = process.argv.includes("--secure");
const dir = path.join(root, "e2e", secure ? ".store-secure" : ".store");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const env = { ...process.env, DATABASE_PATH: path.join(dir, "e2e.db") };
// `npm test`'s second pass: the same tests against a PostgreSQL store (a new database per server, e2e/store.ts).
if (process.env.E2E_POSTGRES_URL) {
  const name = `metron_e2e_${secure ? "secure" : "main"}`;
  const admin = new URL(process.env.E2E_POSTGRES_URL);
  admin.pathname = "/postgres";
  const query = (sql) => {
    const r = spawnSync(process.execPath, [path.join(root, "e2e", "pg-query.mjs"), admin.toString(), sql], {
      stdio: "inherit",
    });
    if (r.status !== 0) process.exit(r.status ?? 1);
  };
  query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  query(`CREATE DATABASE ${name}`);
  const url = new URL(process.env.E2E_POSTGRES_URL);
  url.pathname = `/${name}`;
  env.DATABASE_URL = url.toString();
}
if (secure) {
  const tokens = path.join(dir, "tokens.json");
  writeFileSync(
    tokens,
    JSON.stringify([
      { name: "writer", token: WRITE_TOKEN, access: "write" },
      { name: "reader", token: READ_TOKEN, access: "read" },
    ]),
  );
  env.METRON_TOKENS_FILE = tokens;
}
// A harness profile (issue 31): the test's small MCP agent script as a custom command.
const harnesses = path.join(dir, "harnesses.json");
writeFileSync(
  harnesses,
  JSON.stringify({
    "scripted-agent": {
      kind: "command",
      command: [process.execPath, path.join(root, "lib", "testing", "harness-agent.mjs")],
      model: "script-1",
      timeoutS: 60,
    },
  }),
);
env.METRON_HARNESSES = harnesses;
const seed = path.join(dir, "seed.jsonl");
writeFileSync(seed, makeSeedLines());
// Real Spider-de data from ../shared/data (never copied into the repo), then the seed traces.
const shared = process.env.METRON_SHARED_DATA ?? path.resolve(root, "..", "shared", "data");
const metron = (...args) => {
  const r = spawnSync(process.execPath, ["scripts/metron.mjs", ...args], { cwd: root, env, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
if (!secure) {
  metron(
    "dataset",
    "import",
    "--name",
    "spider-de",
    "--format",
    "spider",
    "--questions",
    path.join(shared, "spider-de", "dev.json"),
    "--databases",
    path.join(shared, "spider-de", "database"),
  );
  metron("ingest", seed);
}
metron("demo");
// A sweep (of one question), so that the sweep pages and routes have one to show (e2e/security.spec.ts).
if (secure)
  metron(
    "sweep",
    "--dataset",
    "demo-retail",
    "--questions",
    "1",
    "--provider",
    "simulated",
    "--model",
    "sim-careful",
    "--variant",
    "oracle",
    "--name",
    "e2e sweep",
    "--detach",
  );
const server = spawn(path.join(root, "node_modules", ".bin", "next"), ["start", "-p", port, "-H", "127.0.0.1"], {
  cwd: root,
  env,
  stdio: "inherit",
});
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.kill(sig));
server.on("exit", (code) => process.exit(code ?? 0));

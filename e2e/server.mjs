// Playwright's web server: a fresh store under e2e/.store, seeded through the real CLI ingest, then `next start`.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { makeSeedLines } from "./fixtures/make-traces.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const port = process.argv[2] ?? "3100";
const dir = path.join(root, "e2e", ".store");
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
const env = { ...process.env, DATABASE_PATH: path.join(dir, "e2e.db") };
const seed = path.join(dir, "seed.jsonl");
writeFileSync(seed, makeSeedLines());
const ingest = spawnSync(process.execPath, ["scripts/metron.mjs", "ingest", seed], { cwd: root, env, stdio: "inherit" });
if (ingest.status !== 0) process.exit(ingest.status ?? 1);
const server = spawn(path.join(root, "node_modules", ".bin", "next"), ["start", "-p", port, "-H", "127.0.0.1"], { cwd: root, env, stdio: "inherit" });
for (const sig of ["SIGINT", "SIGTERM"]) process.on(sig, () => server.kill(sig));
server.on("exit", (code) => process.exit(code ?? 0));

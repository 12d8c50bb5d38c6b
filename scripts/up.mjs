#!/usr/bin/env node
// `npm run up`: install if the lock file changed, migrate, seed the demo once, build if a source changed, serve on
// http://localhost:3000. A second run with nothing changed serves within seconds. Ctrl-C stops it quietly.
import { spawn } from "node:child_process";
import path from "node:path";
import { buildApp, buildIsFresh, ensureInstalled, root, run, step } from "./shell.mjs";

const started = Date.now();
ensureInstalled();
step("Compiling the metron CLI (when lib/ changed)");
const { buildCli } = await import("./build-cli.mjs");
await buildCli();
step("Migrating the store");
run(process.execPath, ["scripts/metron.mjs", "migrate"]);
step("Seeding the simulated demo (once; `npm run metron -- demo --force` seeds it again)");
run(process.execPath, ["scripts/metron.mjs", "demo"]);
if (buildIsFresh()) step("The app's build is up to date (no source changed since it was built): not rebuilt");
else {
  step("Building the app (next build: 2–3 minutes on a 2-core machine)");
  buildApp();
}
const port = process.env.PORT ?? "3000";
// Without an access token Metron is open to whoever reaches it: it listens on this machine only, unless told otherwise.
const tokens = Boolean(process.env.METRON_TOKEN || process.env.METRON_TOKENS_FILE);
const host = process.env.METRON_HOST ?? (tokens ? "0.0.0.0" : "127.0.0.1");
const local = ["127.0.0.1", "localhost", "::1"].includes(host);
if (!tokens && local)
  console.log(
    "No access token (METRON_TOKEN or METRON_TOKENS_FILE): listening on this machine only. See docs/security.md to share it.",
  );
if (!tokens && !local)
  console.warn(
    `\n⚠ Listening on ${host} WITHOUT an access token: anyone who reaches port ${port} can read every trace, upload, evaluate and start reruns that spend your provider keys. Set METRON_TOKEN (docs/security.md).\n`,
  );
step(
  `Serving on http://${local ? "localhost" : host}:${port} (ready ${((Date.now() - started) / 1000).toFixed(1)} s after start; Ctrl-C stops it)`,
);
const server = spawn(path.join(root, "node_modules", ".bin", "next"), ["start", "-p", port, "-H", host], {
  cwd: root,
  stdio: "inherit",
});
// Ctrl-C reaches the server too (same terminal): wait for it to stop, then leave quietly.
let stopping = false;
for (const signal of ["SIGINT", "SIGTERM"])
  process.on(signal, () => {
    stopping = true;
    server.kill(signal);
  });
server.on("exit", (code, signal) => {
  if (stopping || signal === "SIGINT" || signal === "SIGTERM") {
    console.log("\nMetron stopped.");
    process.exit(0);
  }
  process.exit(code ?? 1);
});

#!/usr/bin/env node
// `npm run up`: install if needed, migrate, seed the demo, build, serve on http://localhost:3000.
import { ensureInstalled, run, runBin, step } from "./shell.mjs";

ensureInstalled();
step("Migrating the store");
run(process.execPath, ["scripts/metron.mjs", "migrate"]);
step("Seeding the simulated demo (once; `npm run metron -- demo --force` seeds it again)");
run(process.execPath, ["scripts/metron.mjs", "demo"]);
step("Building the app");
runBin("next", ["build"]);
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
step(`Serving on http://${local ? "localhost" : host}:${port}`);
runBin("next", ["start", "-p", port, "-H", host]);

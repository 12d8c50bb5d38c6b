#!/usr/bin/env node
// `npm run up`: install if the lock file changed, migrate, seed the demo once, build if a source changed, serve on
// http://localhost:3000. A second run with nothing changed serves within seconds. Ctrl-C stops it quietly.
import { buildApp, buildIsFresh, ensureInstalled, run, step } from "./shell.mjs";
import { serve } from "./serve.mjs";

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
step(`Serving (ready ${((Date.now() - started) / 1000).toFixed(1)} s after start; Ctrl-C stops it)`);
serve();

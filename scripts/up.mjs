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
step(`Serving on http://localhost:${port}`);
runBin("next", ["start", "-p", port]);

#!/usr/bin/env node
// `npm test`: install if needed, Chromium and PostgreSQL if missing, then type-check, lint, formatting, unit tests
// (on SQLite, and on a private PostgreSQL server where the tests ask for one), build, end-to-end tests.
import { buildApp, ensureChromium, ensureInstalled, runBin, step } from "./shell.mjs";
import { startTestPostgres } from "./postgres.mjs";

ensureInstalled();
ensureChromium();
step("PostgreSQL (a private server for the tests that run on both engines)");
const pgUrl = await startTestPostgres();
if (pgUrl) process.env.METRON_TEST_DATABASE_URL = pgUrl;
step("Type-check");
runBin("next", ["typegen"]);
runBin("tsc", ["--noEmit"]);
step("Lint");
runBin("eslint", [".", "--max-warnings=0"]);
step("Formatting (prettier --check; `npm run format` fixes it)");
runBin("prettier", ["--check", "."]);
step("Unit tests");
runBin("vitest", ["run"]);
step("Build (the CLI, then the app)");
const { buildCli } = await import("./build-cli.mjs");
await buildCli();
buildApp();
step("End-to-end tests");
runBin("playwright", ["test"]);
if (pgUrl) {
  step("End-to-end tests on PostgreSQL (the same tests, the servers' stores on the test server)");
  runBin("playwright", ["test"], { env: { E2E_POSTGRES_URL: pgUrl } });
}
console.log("\n✔ all checks passed");

#!/usr/bin/env node
// `npm run bench -- <name> [options]`: speed and memory benchmarks, figures printed from one run.
import path from "node:path";
import { ensureInstalled, root } from "./shell.mjs";

// A fresh clone has no node_modules: install as `npm run up` and `npm test` do, before loading tsx from it.
ensureInstalled();
const { register } = await import("tsx/esm/api");
process.env.METRON_MIGRATIONS ??= path.join(root, "drizzle");
// PostgreSQL's migrations too: a `metron mcp` a harness starts in a folder of its own must find them (issue 31).
process.env.METRON_MIGRATIONS_PG ??= path.join(root, "drizzle-pg");
process.env.METRON_ROOT ??= root;
register({ tsconfig: path.join(root, "tsconfig.json") });
const { runBench } = await import("./bench/main.ts");
process.exitCode = await runBench(process.argv.slice(2));

#!/usr/bin/env node
// The `metron` CLI: the compiled one in dist/cli (scripts/build-cli.mjs), built first when a source is newer.
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.env.METRON_MIGRATIONS ??= path.join(root, "drizzle");
// PostgreSQL's migrations too: a `metron mcp` a harness starts in a folder of its own must find them (issue 31).
process.env.METRON_MIGRATIONS_PG ??= path.join(root, "drizzle-pg");
process.env.METRON_ROOT ??= root;
process.env.DATABASE_PATH ??= path.join(root, "data", "metron.db");
const { buildCli } = await import("./build-cli.mjs");
await buildCli({ quiet: true });
await import(pathToFileURL(path.join(root, "dist", "cli", "bin.mjs")).href);

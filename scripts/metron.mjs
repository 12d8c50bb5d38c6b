#!/usr/bin/env node
// The `metron` CLI. Node 20 cannot run .ts, so tsx loads the TypeScript in lib/ at run time.
import path from "node:path";
import { fileURLToPath } from "node:url";
import { register } from "tsx/esm/api";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
process.env.METRON_MIGRATIONS ??= path.join(root, "drizzle");
process.env.METRON_ROOT ??= root;
process.env.DATABASE_PATH ??= path.join(root, "data", "metron.db");
register({ tsconfig: path.join(root, "tsconfig.json") });
const { main } = await import("../lib/cli/main.ts");
process.exitCode = await main(process.argv.slice(2));

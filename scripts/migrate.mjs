#!/usr/bin/env node
// Creates the store (DATABASE_PATH, default data/metron.db) and applies the migrations in drizzle/.
import { run, root } from "./shell.mjs";

run(process.execPath, ["scripts/metron.mjs", "migrate"], { cwd: root });

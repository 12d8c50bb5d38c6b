#!/usr/bin/env node
// `npm run test:harnesses`: the harness conformance suite (harnesses/README.md). The harnesses are pinned in
// harnesses/package-lock.json and installed into harnesses/node_modules (git-ignored) when that lock file changed
// since the last install; then the suite's tests run against them, offline, with a scripted fake model.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ensureInstalled, root, runBin, step } from "./shell.mjs";

ensureInstalled();
const dir = path.join(root, "harnesses");
const lock = readFileSync(path.join(dir, "package-lock.json"));
const digest = createHash("sha256").update(lock).digest("hex");
const stamp = path.join(dir, "node_modules", ".lock-sha256");
if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== digest) {
  step("Installing the pinned harnesses (harnesses/package-lock.json changed)");
  const r = spawnSync("npm", ["ci", "--no-audit", "--no-fund", "--loglevel=error"], { cwd: dir, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
  writeFileSync(stamp, digest);
} else step("The pinned harnesses are installed (harnesses/package-lock.json unchanged)");
step("Type-check of the suite (with its own packages)");
runBin("tsc", ["--noEmit", "-p", "harnesses/tsconfig.json"]);
step("Harness conformance suite");
runBin("vitest", ["run", "--config", "harnesses/vitest.config.ts"]);
console.log("\n✔ the harness suite passed");

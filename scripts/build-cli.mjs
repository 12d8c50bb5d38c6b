#!/usr/bin/env node
// Compiles the `metron` CLI (lib/cli and what it imports) into dist/cli with esbuild: one small entry, and one chunk
// per command loaded when that command runs; packages stay in node_modules. Skipped when dist/cli is newer than
// every source file. scripts/metron.mjs runs it; `npm run up` and `npm test` build it ahead.
import { existsSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { codeStamp, libSources } from "./code-stamp.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = path.join(root, "dist", "cli");
const stamp = path.join(outdir, ".built");

/** The newest modification time among the CLI's possible sources (lib/, the lock file, tsconfig). */
export function newestSource() {
  return Math.max(...libSources(root).map((f) => statSync(f).mtimeMs));
}

export function cliIsFresh() {
  return existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource();
}

export async function buildCli({ quiet = false } = {}) {
  if (cliIsFresh()) return false;
  const started = Date.now();
  const { build } = await import("esbuild"); // loaded only to build: a CLI start that needs no build does not pay for it
  await build({
    // The CLI, and the ingest's worker thread (lib/ingest/in-worker.ts), which the server starts too.
    entryPoints: {
      bin: path.join(root, "lib", "cli", "bin.ts"),
      "ingest-worker": path.join(root, "lib", "ingest", "ingest-worker.ts"),
    },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    tsconfig: path.join(root, "tsconfig.json"),
    outExtension: { ".js": ".mjs" },
    logLevel: "warning",
    // Bundled ESM that loads CommonJS packages needs require.
    banner: {
      js: "import { createRequire as __metronRequire } from 'node:module'; const require = __metronRequire(import.meta.url);",
    },
  });
  // What the CLI stamps the derived data it computes ahead with (lib/cli/bin.ts): as the server built from these sources.
  writeFileSync(path.join(outdir, "code-stamp"), codeStamp(root));
  writeFileSync(stamp, new Date().toISOString());
  if (!quiet) console.log(`metron CLI compiled into dist/cli in ${Date.now() - started} ms`);
  return true;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildCli();

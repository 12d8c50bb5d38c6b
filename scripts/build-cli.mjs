#!/usr/bin/env node
// Compiles the `metron` CLI (lib/cli and what it imports) into dist/cli with esbuild: one small entry, and one chunk
// per command loaded when that command runs (packages stay in node_modules but for `CLI_BUNDLED`); and the ingest
// worker as one file with a V8 code cache. Skipped when dist/cli is newer than every source file and this script.
// scripts/metron.mjs runs it; `npm run up` and `npm test` build it ahead.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { codeStamp, libSources } from "./code-stamp.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const outdir = path.join(root, "dist", "cli");
const stamp = path.join(outdir, ".built");

/**
 * The newest modification time among the CLI's possible sources (lib/, the lock file, tsconfig) and this script (a
 * change of what is bundled, or how, rebuilds too).
 */
export function newestSource() {
  return Math.max(...[...libSources(root), fileURLToPath(import.meta.url)].map((f) => statSync(f).mtimeMs));
}

export function cliIsFresh() {
  return existsSync(stamp) && statSync(stamp).mtimeMs >= newestSource();
}

export async function buildCli({ quiet = false } = {}) {
  if (cliIsFresh()) return false;
  const started = Date.now();
  const { build } = await import("esbuild"); // loaded only to build: a CLI start that needs no build does not pay for it
  const common = {
    outdir,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    tsconfig: path.join(root, "tsconfig.json"),
    outExtension: { ".js": ".mjs" },
    logLevel: "warning",
    // Bundled ESM that loads CommonJS packages needs require.
    banner: {
      js: "import { createRequire as __metronRequire } from 'node:module'; const require = __metronRequire(import.meta.url);",
    },
  };
  // The CLI: one small entry, a chunk per command. Packages stay in node_modules, but for a few that only Metron's
  // own code uses, bundled into the chunks that need them (`CLI_BUNDLED`).
  await build({
    ...common,
    entryPoints: { bin: path.join(root, "lib", "cli", "bin.ts") },
    splitting: true,
    external: cliExternals(),
  });
  // The ingest's worker thread (lib/ingest/in-worker.ts), which the server starts too: its code in one CommonJS file
  // with the packages it uses (zod, kysely, the price catalogue; better-sqlite3 is native and stays outside), and an
  // entry that compiles it with V8's code cache (lib/ingest/ingest-worker-loader.ts). Every ingest waits for this
  // thread's modules before its first batch: as chunks importing packages from node_modules they took 0.35–0.38 s to
  // load (kysely's hundreds of files alone 0.16 s), as one file 0.17–0.19 s, and less from the cache
  // (docs/benchmarks.md).
  await build({
    ...common,
    entryPoints: { "ingest-worker-body": path.join(root, "lib", "ingest", "ingest-worker.ts") },
    format: "cjs",
    outExtension: { ".js": ".cjs" },
    external: ["better-sqlite3"],
    // CommonJS has no import.meta: the one module that reads it (lib/sql/parse-tables.ts) gets the file's own URL.
    define: { "import.meta.url": "__metronImportMetaUrl" },
    banner: { js: 'const __metronImportMetaUrl = require("node:url").pathToFileURL(__filename).href;' },
  });
  await build({
    ...common,
    entryPoints: { "ingest-worker": path.join(root, "lib", "ingest", "ingest-worker-loader.ts") },
    packages: "external",
  });
  writeWorkerCodeCache();
  // What the CLI stamps the derived data it computes ahead with (lib/cli/bin.ts): as the server built from these sources.
  writeFileSync(path.join(outdir, "code-stamp"), codeStamp(root));
  writeFileSync(stamp, new Date().toISOString());
  if (!quiet) console.log(`metron CLI compiled into dist/cli in ${Date.now() - started} ms`);
  return true;
}

/**
 * Packages bundled into the CLI's chunks instead of imported from node_modules: those that only Metron's own code
 * imports (no package left outside shares their objects, as the MCP and AI SDKs share zod's, which stays outside).
 * Imported from node_modules, the ingest command's modules took about 0.7 s to load before the store was opened
 * (kysely's hundreds of files 0.18 s, drizzle-orm's 0.1–0.14 s), while its worker waited with its first batches
 * (docs/benchmarks.md).
 */
const CLI_BUNDLED = [
  "kysely",
  "drizzle-orm",
  "@pydantic/genai-prices",
  "@opentelemetry/semantic-conventions",
  "@arizeai/openinference-semantic-conventions",
  "minisearch",
  "fzstd",
  "@streamparser/json",
  "yauzl",
];

/** Every package the project depends on but those in `CLI_BUNDLED` (esbuild keeps a package's subpaths outside too). */
function cliExternals() {
  const pkg = JSON.parse(readFileSync(path.join(root, "package.json"), "utf8"));
  const all = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies });
  const missing = CLI_BUNDLED.filter((name) => !all.includes(name));
  if (missing.length)
    throw new Error(`CLI_BUNDLED names packages the project does not depend on: ${missing.join(", ")}`);
  return all.filter((name) => !CLI_BUNDLED.includes(name));
}

/**
 * The worker's code cache, written by the built entry in a process of its own (Node's default flags, as the worker
 * thread has them; V8 rejects a cache made under other flags). A failure leaves no cache: the worker then compiles as
 * before, so the build goes on and says so.
 */
function writeWorkerCodeCache() {
  const entry = path.join(outdir, "ingest-worker.mjs");
  const child = spawnSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `(await import(${JSON.stringify(pathToFileURL(entry).href)})).writeWorkerCodeCache()`,
    ],
    { encoding: "utf8" },
  );
  if (child.status !== 0) console.warn(`the ingest worker's code cache was not written:\n${child.stderr}`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await buildCli();

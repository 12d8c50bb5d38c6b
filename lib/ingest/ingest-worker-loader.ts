/**
 * The ingest worker's entry, dist/cli/ingest-worker.mjs (scripts/build-cli.mjs). The worker's code (ingest-worker.ts
 * and the packages it uses) is compiled into one CommonJS file beside it, which this entry compiles with V8's code
 * cache when the build left one this Node accepts: every ingest waits for the worker's modules before its first batch,
 * and compiling 2 MB of JavaScript was about 90 ms of the 0.2 s they took to load, 30 ms from the cache
 * (docs/benchmarks.md). Without a cache, or with one V8 rejects (another Node, other V8 flags), it compiles as usual.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { isMainThread } from "node:worker_threads";

const dir = path.dirname(fileURLToPath(import.meta.url));
export const WORKER_BODY = path.join(dir, "ingest-worker-body.cjs");
export const WORKER_CODE_CACHE = path.join(dir, "ingest-worker-body.v8cache");

/** The body compiled, with the cache when there is one: `rejected` when V8 refused it. */
function compile(useCache: boolean): { script: vm.Script; rejected: boolean | undefined } {
  let cachedData: Buffer | undefined;
  if (useCache) {
    try {
      cachedData = readFileSync(WORKER_CODE_CACHE);
    } catch {
      cachedData = undefined; // not built: compiled as usual
    }
  }
  // The CommonJS wrapper, as Node's own loader writes it; the cache holds the compiled code of this exact text.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(WORKER_BODY, "utf8")}\n})`;
  const script = new vm.Script(source, { filename: WORKER_BODY, cachedData });
  return { script, rejected: cachedData ? script.cachedDataRejected : undefined };
}

function run(script: vm.Script): void {
  const commonJsModule = { exports: {} };
  const body = script.runInThisContext() as (...args: unknown[]) => void;
  body(commonJsModule.exports, createRequire(WORKER_BODY), commonJsModule, WORKER_BODY, dir);
}

/**
 * Writes the code cache of the built body (scripts/build-cli.mjs, in a process of its own with Node's default flags,
 * as a worker has them): compiled and run first, so that the functions its start compiles are in the cache too. On
 * the main thread the body only defines (it starts reading when it has a parent port).
 */
export function writeWorkerCodeCache(): { bytes: number } {
  const { script } = compile(false);
  run(script);
  const data = script.createCachedData();
  const temporary = `${WORKER_CODE_CACHE}.${process.pid}`;
  writeFileSync(temporary, data);
  renameSync(temporary, WORKER_CODE_CACHE);
  return { bytes: data.length };
}

/**
 * What this thread's compile of the body did with the code cache: "accepted", "rejected" (compiled without it), or
 * "none" (no cache built); null on the main thread, which does not run the body (a test reads it in a worker).
 */
export let workerCodeCache: "accepted" | "rejected" | "none" | null = null;

if (!isMainThread) {
  const { script, rejected } = compile(true);
  workerCodeCache = rejected === undefined ? "none" : rejected ? "rejected" : "accepted";
  run(script);
}

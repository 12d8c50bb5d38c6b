/**
 * The ingest worker's entry, dist/cli/ingest-worker.mjs (scripts/build-cli.mjs). The worker's code (ingest-worker.ts
 * and the packages it uses) is compiled into one CommonJS file beside it, which this entry compiles with V8's code
 * cache when the build left one this Node accepts: every ingest waits for the worker's modules before its first batch,
 * and compiling 2 MB of JavaScript was about 90 ms of the 0.2 s they took to load, 30 ms from the cache
 * (docs/benchmarks.md). Without a cache, or with one V8 rejects (another Node, other V8 flags), it compiles as usual.
 */
import { createHash } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";
import { isMainThread } from "node:worker_threads";

const dir = path.dirname(fileURLToPath(import.meta.url));
export const WORKER_BODY = path.join(dir, "ingest-worker-body.cjs");
export const WORKER_CODE_CACHE = path.join(dir, "ingest-worker-body.v8cache");

/**
 * The body compiled, with the cache when there is one: `rejected` when it was refused. The cache file starts with the
 * SHA-256 of the source it was made from: V8 checks a cache against its source's length only, and took a cache made
 * for another body of the same length (a one-character edit, a build whose cache was not written) as its own.
 */
function compile(useCache: boolean): { script: vm.Script; source: string; rejected: boolean | undefined } {
  // The CommonJS wrapper, as Node's own loader writes it; the cache holds the compiled code of this exact text.
  const source = `(function (exports, require, module, __filename, __dirname) {${readFileSync(WORKER_BODY, "utf8")}\n})`;
  let file: Buffer | undefined;
  if (useCache) {
    try {
      file = readFileSync(WORKER_CODE_CACHE);
    } catch {
      file = undefined; // not built: compiled as usual
    }
  }
  if (!file) return { script: new vm.Script(source, { filename: WORKER_BODY }), source, rejected: undefined };
  if (file.length <= DIGEST_BYTES || !file.subarray(0, DIGEST_BYTES).equals(digestOf(source)))
    return { script: new vm.Script(source, { filename: WORKER_BODY }), source, rejected: true };
  const script = new vm.Script(source, { filename: WORKER_BODY, cachedData: file.subarray(DIGEST_BYTES) });
  return { script, source, rejected: script.cachedDataRejected };
}

const DIGEST_BYTES = 32;
const digestOf = (source: string) => createHash("sha256").update(source).digest();

function run(script: vm.Script): void {
  const commonJsModule = { exports: {} };
  const body = script.runInThisContext() as (...args: unknown[]) => void;
  body(commonJsModule.exports, createRequire(WORKER_BODY), commonJsModule, WORKER_BODY, dir);
}

/**
 * Writes the code cache of the built body, after the digest of its source (scripts/build-cli.mjs, in a process of its
 * own with Node's default flags, as a worker has them): compiled and run first, so that the functions its start
 * compiles are in the cache too. On the main thread the body only defines (it starts reading when it has a parent
 * port).
 */
export function writeWorkerCodeCache(): { bytes: number } {
  const { script, source } = compile(false);
  run(script);
  const data = Buffer.concat([digestOf(source), script.createCachedData()]);
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

/**
 * The ingest worker's code is one CommonJS file compiled from V8's code cache (lib/ingest/ingest-worker-loader.ts,
 * scripts/build-cli.mjs): a worker thread started as an ingest starts it accepts the cache the build wrote, and a
 * cache refused (another Node, a damaged file, a cache made for another body) only costs the compile: the worker
 * still reads a real trace.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Worker } from "node:worker_threads";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { tempDb } from "@/lib/testing/db";
import { realisticLines } from "@/lib/testing/realistic-traces";
import { ingestFile } from "./ingest-file";
import { ingestWorkerFile, WORKER_LIMITS } from "./in-worker";

const saved = { ...process.env };
afterEach(() => {
  for (const key of ["METRON_ROOT", "METRON_INGEST_WORKER_BYTES"])
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
});

/** Starts the worker entry `entry` in a thread as an ingest does and asks what its compile did with the code cache. */
function cacheInWorker(entry: string): Promise<string> {
  const code = `import(${JSON.stringify(entry)}).then((m) => {
    require("node:worker_threads").parentPort.postMessage({ cache: m.workerCodeCache });
    process.exit(0);
  });`;
  // No inherited flags (the test runner's): the ingest's worker gets the server's or the CLI's, which are Node's own.
  const worker = new Worker(code, { eval: true, execArgv: [], resourceLimits: WORKER_LIMITS });
  return new Promise((resolve, reject) => {
    worker.once("message", (m: { cache: string }) => resolve(m.cache));
    worker.once("error", reject);
  });
}

describe("the ingest worker's code cache", () => {
  const entry = ingestWorkerFile()!;
  // A copy of the built worker inside the project (its packages resolve from node_modules), as the worker of a root
  // of its own (METRON_ROOT/dist/cli), with a damaged cache.
  const root = mkdtempSync(path.join(path.dirname(path.dirname(entry)), "cache-test-"));
  const copy = path.join(root, "dist", "cli");
  mkdirSync(copy, { recursive: true });
  const store = tempDb();
  afterAll(() => {
    store.cleanup();
    rmSync(root, { recursive: true, force: true });
  });

  it("is written by the build and accepted in a worker thread with the ingest's limits", async () => {
    expect(entry).toMatch(/dist[\\/]cli[\\/]ingest-worker\.mjs$/);
    expect(await cacheInWorker(entry)).toBe("accepted");
  });

  it("is refused when damaged, and the worker's code is compiled without it", async () => {
    for (const f of ["ingest-worker.mjs", "ingest-worker-body.cjs"])
      copyFileSync(path.join(path.dirname(entry), f), path.join(copy, f));
    writeFileSync(path.join(copy, "ingest-worker-body.v8cache"), Buffer.alloc(4096, 7));
    expect(await cacheInWorker(path.join(copy, "ingest-worker.mjs"))).toBe("rejected");
    // An upload read by that worker: stored as by any other (120 traces of Spider-de questions, two bad lines).
    process.env.METRON_ROOT = root;
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    const file = path.join(store.dir, "traces.jsonl");
    writeFileSync(file, realisticLines());
    const report = await ingestFile(store.sql, file);
    expect(report.read_in_worker).toBe(true);
    expect(report.inserted).toBe(121);
    expect(report.errors.map((e) => e.line)).toEqual([14, 25]);
    rmSync(path.join(copy, "ingest-worker-body.v8cache"));
    expect(await cacheInWorker(path.join(copy, "ingest-worker.mjs"))).toBe("none");
  });

  it("is refused for a body other than the one it was made from, even of the same length", async () => {
    // V8 checks a cache against its source's length only: it ran this cache with the changed body as its own.
    const dir = path.dirname(entry);
    copyFileSync(path.join(dir, "ingest-worker.mjs"), path.join(copy, "ingest-worker.mjs"));
    copyFileSync(path.join(dir, "ingest-worker-body.v8cache"), path.join(copy, "ingest-worker-body.v8cache"));
    const body = readFileSync(path.join(dir, "ingest-worker-body.cjs"), "utf8");
    const changed = body.replace("this trace could not be stored", "THIS trace could not be stored");
    expect(changed.length).toBe(body.length);
    expect(changed).not.toBe(body);
    writeFileSync(path.join(copy, "ingest-worker-body.cjs"), changed);
    expect(await cacheInWorker(path.join(copy, "ingest-worker.mjs"))).toBe("rejected");
    // The original body with its own cache: accepted (the copy is a faithful worker).
    copyFileSync(path.join(dir, "ingest-worker-body.cjs"), path.join(copy, "ingest-worker-body.cjs"));
    expect(await cacheInWorker(path.join(copy, "ingest-worker.mjs"))).toBe("accepted");
  });
});

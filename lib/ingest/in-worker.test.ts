/**
 * The ingest worker (large uploads) stores exactly what the writing thread alone stores: the same traces, steps,
 * metrics, blobs, errors and warnings, on real Spider-de questions and databases and a real foreign file.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { omit, realisticLines, storedRows } from "@/lib/testing/realistic-traces";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { jsonl } from "@/lib/testing/factories";
import { sharedData } from "@/lib/testing/shared-data";
import { asSql, sqliteSql } from "@/lib/db/sql";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { ingestStream } from "./ingest";
import { ingestFile } from "./ingest-file";
import { ingestWorkerFile } from "./in-worker";

const saved = process.env.METRON_INGEST_WORKER_BYTES;
afterEach(() => {
  if (saved === undefined) delete process.env.METRON_INGEST_WORKER_BYTES;
  else process.env.METRON_INGEST_WORKER_BYTES = saved;
});

const stored = (sqlite: import("better-sqlite3").Database) => storedRows(sqliteSql(sqlite));

describe("the ingest worker", () => {
  const alone = tempDb();
  const worker = tempDb();
  beforeAll(async () => {
    await importSpiderDe(alone);
    await importSpiderDe(worker);
  });
  afterAll(() => {
    alone.cleanup();
    worker.cleanup();
  });

  it("is built for the tests (dist/cli/ingest-worker.mjs)", () => {
    expect(ingestWorkerFile()).toMatch(/ingest-worker\.mjs$/);
  });

  it("stores what the writing thread alone stores, byte for byte, from a file and from a stream", async () => {
    const file = path.join(alone.dir, "traces.jsonl");
    writeFileSync(file, realisticLines());
    process.env.METRON_INGEST_WORKER_BYTES = "off";
    const a = await ingestFile(asSql(alone.db.$client), file);
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    const b = await ingestFile(asSql(worker.db.$client), file);
    expect(a.read_in_worker).toBe(false);
    expect(b.read_in_worker).toBe(true);
    expect(omit(b, "upload_id", "read_in_worker")).toEqual(omit(a, "upload_id", "read_in_worker"));
    expect(a.inserted).toBe(121); // 120 questions and the trace written as events
    expect(a.duplicates).toBe(1);
    expect(a.errors.map((e) => e.line)).toEqual([14, 25]); // the broken JSON and the invalid trace, by line // the broken JSON and the invalid trace, by line
    expect(a.errors[1].message).toMatch(/steps: .*expected array/);
    expect(a.warnings.length).toBe(25); // the fenced final SQL of every fifth question (one is the duplicate)
    const s = await stored(alone.db.$client);
    expect(await stored(worker.db.$client)).toEqual(s);
    expect(s.traces.filter((t) => t.gold_count !== null).length).toBeGreaterThan(90); // measured against Spider-de
    expect(s.blobs.length).toBeGreaterThan(0);

    // The same lines again, in 1 kB pieces of one shared buffer (copied, not transferred): all duplicates.
    const again = await ingestStream(asSql(worker.db.$client), chunksOf(readFileSync(file), 1000), {
      expectedBytes: 1,
    });
    expect(again).toMatchObject({ read_in_worker: true, inserted: 0, duplicates: 122, error_count: 2 });
  });

  it("reads a real foreign file (LiveSQLBench) alike", async () => {
    const file = sharedData("traces", "livesqlbench-adk", "single_turn_samples.json");
    const defaults = { name: "livesql", system: "ADK agent", model: "unknown" };
    process.env.METRON_INGEST_WORKER_BYTES = "off";
    const a = await ingestFile(asSql(alone.db.$client), file, { defaults });
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    const b = await ingestFile(asSql(worker.db.$client), file, { defaults });
    expect([a.inserted, b.inserted, b.read_in_worker]).toEqual([3, 3, true]);
    // (The worker's store also holds the errors of the second upload above.)
    expect(omit(await stored(worker.db.$client), "errors")).toEqual(omit(await stored(alone.db.$client), "errors"));
  });

  it("rolls the whole upload back when it is stopped mid-way, and the thread ends", async () => {
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    const before = await stored(worker.db.$client);
    let batches = 0;
    await expect(
      ingestStream(asSql(worker.db.$client), chunksOf(realisticLines().replaceAll("gpt-test", "gpt-other"), 4096), {
        expectedBytes: 1,
        onProgress: () => {
          if (++batches === 3) throw new Error("stopped by the user");
        },
      }),
    ).rejects.toThrow("stopped by the user");
    expect(await stored(worker.db.$client)).toEqual(before);

    async function* failing() {
      yield Buffer.from(realisticLines().slice(0, 20_000).replaceAll("gpt-test", "gpt-third"));
      throw new Error("the connection dropped");
    }
    await expect(ingestStream(asSql(worker.db.$client), failing(), { expectedBytes: 1 })).rejects.toThrow(
      "the connection dropped",
    );
    expect(await stored(worker.db.$client)).toEqual(before);
    // The store is writable again: nothing holds the write lock.
    const ok = await ingestStream(
      asSql(worker.db.$client),
      chunksOf(jsonl(JSON.parse(realisticLines().split("\n")[1])), 64),
      {
        expectedBytes: 1,
      },
    );
    expect(ok.read_in_worker).toBe(true);
  });

  it("is not used below the size threshold, nor when turned off", async () => {
    delete process.env.METRON_INGEST_WORKER_BYTES;
    const small = await ingestStream(asSql(worker.db.$client), chunksOf(realisticLines()), { expectedBytes: 1000 });
    expect(small.read_in_worker).toBe(false);
    process.env.METRON_INGEST_WORKER_BYTES = "lots";
    await expect(ingestStream(asSql(worker.db.$client), chunksOf("{}\n"), { expectedBytes: 1 })).rejects.toThrow(
      /METRON_INGEST_WORKER_BYTES/,
    );
  });
});

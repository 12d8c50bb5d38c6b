/**
 * The ingest worker (large uploads) stores exactly what the writing thread alone stores: the same traces, steps,
 * metrics, blobs, errors and warnings, on real Spider-de questions and databases and a real foreign file.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { omit, realisticLines, storedRows } from "@/lib/testing/realistic-traces";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { jsonl } from "@/lib/testing/factories";
import { sharedData } from "@/lib/testing/shared-data";
import { asSql, sqliteSql } from "@/lib/db/sql";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { ingestStream } from "./ingest";
import { ingestFile } from "./ingest-file";
import {
  checkpointsSettled,
  discardWarmWorker,
  ingestWorkerFile,
  lineBlocks,
  warmWorkerWaiting,
  type LineBlock,
} from "./in-worker";
import { metron } from "@/lib/testing/metron-cli";
import { prewarmIngestWorker, startIngestWorkerAhead } from "@/lib/cli/ingest-ahead";

const saved = { ...process.env };
afterEach(() => {
  for (const key of ["METRON_INGEST_WORKER_BYTES", "METRON_INGEST_WORKERS", "METRON_MAX_LINE_BYTES"])
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
});

const stored = (sqlite: import("better-sqlite3").Database) => storedRows(sqliteSql(sqlite));

/** Two fresh stores holding Spider-de (its questions and databases, which traces are measured against). */
function twoSpiderDeStores() {
  const stores = [tempDb(), tempDb()] as const;
  beforeAll(async () => {
    for (const s of stores) await importSpiderDe(s);
  });
  afterAll(async () => {
    await checkpointsSettled();
    for (const s of stores) s.cleanup();
  });
  return stores;
}

describe("the ingest worker", () => {
  const [alone, worker] = twoSpiderDeStores();

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
    expect(omit(b, "upload_id", "read_in_worker", "worker_threads")).toEqual(
      omit(a, "upload_id", "read_in_worker", "worker_threads"),
    );
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

  it("ends without taking the process down when stopped while it measures SQL that SQLite refuses", async () => {
    // Each trace's final SQL is long and names a table the database lacks: the worker spends most of its time in a
    // better-sqlite3 prepare that throws. A thread terminated there aborted the whole process (a server with it),
    // which ended this test file (in about half the runs of these 24 stops); the worker is now asked to stop and
    // ends between two chunks.
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    const before = await stored(worker.db.$client);
    const columns = Array.from({ length: 400 }, (_, c) => `spalte_${c} + ${c}`).join(", ");
    const lines = Array.from({ length: 300 }, (_, i) =>
      JSON.stringify({
        run: { name: "refused", system: "No Directives", model: "gpt-refused", benchmark: "spider-de" },
        question: { id: String(i % 100) },
        sample: i,
        steps: [{ type: "tool_call", tool: "read_query", args: { query: "SELECT 1" }, result: [[1]] }],
        final_sql: `SELECT ${columns} FROM fehlende_tabelle_${i}`,
        outcome: { status: "submitted", correct: false },
      }),
    ).join("\n");
    for (let stopAt = 1; stopAt <= 24; stopAt++) {
      let batches = 0;
      await expect(
        ingestStream(asSql(worker.db.$client), chunksOf(lines, 2048), {
          expectedBytes: 1,
          onProgress: () => {
            if (++batches === stopAt) throw new Error("stopped by the user");
          },
        }),
      ).rejects.toThrow("stopped by the user");
    }
    expect(await stored(worker.db.$client)).toEqual(before);
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

describe("an ingest worker started ahead (metron ingest)", () => {
  const [plain, ahead] = twoSpiderDeStores();

  it("is the worker the next ingest reads in, and stores what a worker started then stores", async () => {
    const file = path.join(plain.dir, "traces.jsonl");
    writeFileSync(file, realisticLines());
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    const a = await ingestFile(asSql(plain.db.$client), file);
    prewarmIngestWorker(1);
    expect(warmWorkerWaiting()).toBe(true);
    const b = await ingestFile(asSql(ahead.db.$client), file);
    expect(warmWorkerWaiting()).toBe(false); // taken
    expect(b.read_in_worker).toBe(true);
    expect(omit(b, "upload_id")).toEqual(omit(a, "upload_id"));
    expect(await stored(ahead.db.$client)).toEqual(await stored(plain.db.$client));
  });

  it("is not started below the size threshold, and one no ingest took is ended", () => {
    delete process.env.METRON_INGEST_WORKER_BYTES;
    prewarmIngestWorker(1000);
    expect(warmWorkerWaiting()).toBe(false);
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    prewarmIngestWorker(1000);
    expect(warmWorkerWaiting()).toBe(true);
    discardWarmWorker();
    expect(warmWorkerWaiting()).toBe(false);
  });

  it("from the command line: a large file is read in it, and a command that does not use it still exits", async () => {
    const dir = ahead.dir;
    const file = path.join(dir, "cli.jsonl");
    writeFileSync(file, realisticLines().replaceAll("gpt-test", "gpt-cli"));
    const env = { DATABASE_PATH: path.join(dir, "cli.db"), METRON_INGEST_WORKER_BYTES: "0", METRON_VIEWS_AHEAD: "0" };
    const read = await metron(env, ["ingest", "--json", file]);
    expect(read.code, read.err).toBe(0);
    expect(JSON.parse(read.out)).toMatchObject({ read_in_worker: true, inserted: 121 });
    // A usage error after the worker started: the command fails at once, the thread does not hold it open.
    const refused = await metron(env, ["ingest", file, "--format", "no-such-format"]);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(/--format must be/);
    // Real files of real writers (a Claude Code session, LiveSQLBench's ADK samples), two in one command: the first
    // is read in the worker started ahead, the second in one of its own.
    const session = sharedData("traces", "claude-code", "session_b.jsonl");
    const adk = sharedData("traces", "livesqlbench-adk", "single_turn_samples.json");
    const real = await metron(env, ["ingest", "--json", "--run", "real", session, adk]);
    expect(real.code, real.err).toBe(0);
    expect(
      (JSON.parse(real.out) as { format: string; inserted: number; read_in_worker: boolean }[]).map((r) => [
        r.format,
        r.inserted,
        r.read_in_worker,
      ]),
    ).toEqual([
      ["claude-code", 1, true],
      [expect.any(String), 3, true],
    ]);
  });

  it("is started for the first argument naming a file, not for an option, and never for a PostgreSQL store", () => {
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    const file = path.join(ahead.dir, "traces.jsonl");
    writeFileSync(file, "{}\n");
    startIngestWorkerAhead(["--json", "--format", "auto"]);
    expect(warmWorkerWaiting()).toBe(false); // no file among them
    startIngestWorkerAhead(["--json", file]);
    expect(warmWorkerWaiting()).toBe(true);
    discardWarmWorker();
    vi.stubEnv("DATABASE_URL", "postgres://metron@127.0.0.1:5432/postgres");
    try {
      startIngestWorkerAhead([file]);
      expect(warmWorkerWaiting()).toBe(false);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});

/** A file with what real files hold besides traces: a byte-order mark, CRLF, blank and broken lines, events. */
function awkwardFile(): Buffer {
  const lines = realisticLines().trimEnd().split("\n");
  const long = JSON.stringify({ run: { name: "long" }, question: { id: "1" }, steps: [], note: "y".repeat(20_000) });
  return Buffer.concat([
    Buffer.from("\uFEFF"),
    Buffer.from(lines.slice(0, 12).join("\r\n") + "\r\n\n"),
    Buffer.from(long + "\n"), // over a 10,000-byte limit, across several chunks
    Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]), // invalid UTF-8
    Buffer.from(lines.slice(12, -1).join("\n") + "\n\n\n"),
    Buffer.from(long + "\n"),
    Buffer.from(lines[lines.length - 1]), // the last event line, with no newline after it
  ]);
}

describe("a pool of ingest workers", () => {
  const [alone, pool] = twoSpiderDeStores();

  it("cuts a stream into blocks of whole lines, numbered, whatever the chunks; long lines reported, not held", async () => {
    const file = awkwardFile();
    const whole = file.toString("latin1").split("\n");
    for (const size of [1, 7, 700, 4096, 1 << 20]) {
      const progress = { bytes: 0, lines: 0 };
      const blocks: LineBlock[] = [];
      for await (const b of lineBlocks(chunksOf(file, size), 10_000, progress)) blocks.push(b);
      // Every line is in exactly one block or reported as too long, in order, with its number.
      const seen: string[] = [];
      for (const b of blocks) {
        expect(b.firstLine).toBe(seen.length + 1);
        if ("oversized" in b) {
          expect(b.oversized).toBe(whole[b.firstLine - 1].length);
          expect(b.oversized).toBeGreaterThan(10_000);
          seen.push(whole[b.firstLine - 1]);
        } else {
          const text = Buffer.from(b.bytes).toString("latin1");
          expect(text.endsWith("\n") || b === blocks[blocks.length - 1]).toBe(true);
          seen.push(...(text.endsWith("\n") ? text.slice(0, -1) : text).split("\n"));
        }
      }
      expect(seen).toEqual(whole);
      expect(progress).toEqual({ bytes: file.length, lines: whole.length });
      // In one chunk: one block of whole lines (the long ones left to the worker), and the last line, which has no newline.
      if (size === 1 << 20) expect(blocks.length).toBe(2);
    }
  });

  it("stores what one worker stores, with the same lines reported, from a real-looking file in small chunks", async () => {
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    process.env.METRON_MAX_LINE_BYTES = "10000";
    process.env.METRON_INGEST_WORKERS = "1";
    const a = await ingestStream(asSql(alone.db.$client), chunksOf(awkwardFile(), 4096), { expectedBytes: 1 });
    process.env.METRON_INGEST_WORKERS = "3";
    const b = await ingestStream(asSql(pool.db.$client), chunksOf(awkwardFile(), 4096), { expectedBytes: 1 });
    expect([a.worker_threads, b.worker_threads]).toEqual([1, 3]);
    expect(omit(b, "upload_id", "worker_threads")).toEqual(omit(a, "upload_id", "worker_threads"));
    expect(a.inserted).toBe(121); // 120 questions and the trace written as events, its last step on the last line
    // The broken lines by number: the two long ones, the invalid UTF-8, the broken JSON, the invalid trace.
    expect(a.errors.map((e) => e.message.slice(0, 12))).toEqual(
      expect.arrayContaining(["line is 2006", "invalid UTF-", "invalid JSON"]),
    );
    expect(a.error_count).toBe(5);
    const s = await stored(alone.db.$client);
    expect(await stored(pool.db.$client)).toEqual(s);
    expect(s.traces.find((t) => t.run_id && t.question_id === "3" && t.step_count === 2)).toBeDefined();

    // The same file read whole by the pool: every trace a duplicate, the same errors.
    const file = path.join(pool.dir, "awkward.jsonl");
    writeFileSync(file, awkwardFile());
    const again = await ingestFile(asSql(pool.db.$client), file);
    expect(again).toMatchObject({ worker_threads: 3, inserted: 0, duplicates: 122, error_count: 5 });
  });

  it("rolls the whole upload back when stopped mid-way, and the store takes the next upload", async () => {
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    process.env.METRON_INGEST_WORKERS = "2";
    const before = await stored(pool.db.$client);
    let batches = 0;
    await expect(
      ingestStream(asSql(pool.db.$client), chunksOf(realisticLines().replaceAll("gpt-test", "gpt-pool"), 4096), {
        expectedBytes: 1,
        onProgress: () => {
          if (++batches === 3) throw new Error("stopped by the user");
        },
      }),
    ).rejects.toThrow("stopped by the user");
    expect(await stored(pool.db.$client)).toEqual(before);
    const ok = await ingestStream(
      asSql(pool.db.$client),
      chunksOf(realisticLines().replaceAll("gpt-test", "gpt-pool"), 4096),
      { expectedBytes: 1 },
    );
    // Every trace but the one written as events (its run names no model, so it is the one stored above).
    expect(ok).toMatchObject({ worker_threads: 2, inserted: 120, duplicates: 2 });
  });

  it("says what is wrong with METRON_INGEST_WORKERS", async () => {
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    process.env.METRON_INGEST_WORKERS = "many";
    await expect(ingestStream(asSql(pool.db.$client), chunksOf("{}\n"), { expectedBytes: 1 })).rejects.toThrow(
      /METRON_INGEST_WORKERS must be a whole number/,
    );
  });
});

describe("the checkpoint after an upload read in the worker", () => {
  const [store] = twoSpiderDeStores();

  it("is not made by the commit on the writing thread but by the worker afterwards, and folds the log in", async () => {
    const raw = store.db.$client;
    const file = raw.name;
    raw.pragma("wal_checkpoint(TRUNCATE)"); // Spider-de's rows in the store file, the log empty
    const base = statSync(file).size;
    raw.pragma("wal_autocheckpoint = 1"); // a commit on this connection would checkpoint whatever it wrote
    // The store file's size as the commit returns, before this thread could ask the worker for anything.
    const exec = raw.exec.bind(raw);
    const atCommit: number[] = [];
    raw.exec = (text: string) => {
      const out = exec(text);
      if (text === "COMMIT") atCommit.push(statSync(file).size);
      return out;
    };
    try {
      process.env.METRON_INGEST_WORKER_BYTES = "0";
      const lines = realisticLines().replaceAll("gpt-test", "gpt-checkpoint");
      const report = await ingestStream(asSql(raw), chunksOf(lines, 65536), { expectedBytes: 1 });
      expect(report).toMatchObject({ read_in_worker: true, inserted: 121 });
      expect(atCommit).toEqual([base]); // the commit copied nothing into the store file
      const [done] = await checkpointsSettled();
      expect(done).toMatchObject({ busy: 0 });
      expect(done!.log).toBeGreaterThan(0);
      expect(done!.checkpointed).toBe(done!.log);
      expect(statSync(file).size).toBeGreaterThan(base);
      expect(raw.pragma("wal_autocheckpoint", { simple: true })).toBe(1); // the connection's own setting again
      // What a new connection reads from the store file alone (the log emptied) is the upload.
      raw.pragma("wal_checkpoint(TRUNCATE)");
      expect(statSync(`${file}-wal`).size).toBe(0);
      const again = new Database(file, { readonly: true });
      expect(
        again
          .prepare(
            "SELECT count(*) AS n FROM traces WHERE run_id IN (SELECT id FROM runs WHERE model = 'gpt-checkpoint')",
          )
          .get(),
      ).toEqual({ n: 120 });
      again.close();
    } finally {
      raw.exec = exec;
      raw.pragma("wal_autocheckpoint = 1000");
    }
  });

  it("is not asked for when the upload fails, and the connection's setting comes back", async () => {
    const raw = store.db.$client;
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    await expect(ingestStream(asSql(raw), chunksOf(""), { expectedBytes: 1 })).rejects.toThrow(/no lines to ingest/);
    expect(await checkpointsSettled()).toEqual([]);
    expect(raw.pragma("wal_autocheckpoint", { simple: true })).toBe(1000);
  });
});

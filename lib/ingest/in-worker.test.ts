/**
 * The ingest worker (large uploads) stores exactly what the writing thread alone stores: the same traces, steps,
 * metrics, blobs, errors and warnings, on real Spider-de questions and databases and a real foreign file.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { jsonl } from "@/lib/testing/factories";
import { sharedData } from "@/lib/testing/shared-data";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { ingestStream } from "./ingest";
import { ingestFile } from "./ingest-file";
import { ingestWorkerFile } from "./in-worker";

const spider = JSON.parse(readFileSync(sharedData("spider-de", "dev.json"), "utf8")) as {
  db_id: string;
  question: string;
  query: string;
}[];

/** Traces an agent could have written on Spider-de's first questions: probes, queries, fenced answers, failures. */
function realisticLines(): string {
  const lines: unknown[] = [];
  spider.slice(0, 120).forEach((q, i) => {
    const table = /FROM\s+("?)([\p{L}\p{N}_]+)\1/iu.exec(q.query)?.[2] ?? "x";
    lines.push({
      run: {
        name: i % 3 ? "worker run" : "other run",
        system: "No Directives",
        model: "gpt-test",
        benchmark: "spider-de",
      },
      question: { id: String(i) },
      sample: i % 2,
      steps: [
        { type: "tool_call", tool: "list_tables", args: {}, result: `${table}\nother` },
        { type: "tool_call", tool: "describe_table", args: { table_name: table }, result: "id INTEGER" },
        { type: "tool_call", tool: "read_query", args: { query: `PRAGMA table_info(${table})` }, result: [] },
        { type: "tool_call", tool: "read_query", args: { query: q.query, max_rows: 5 }, result: "x".repeat(i * 40) },
        { type: "reasoning", content: `Schritt ${i}: ${q.question}` },
        ...(i % 7 === 0 ? [{ type: "error", error: "tool timed out", tool: "read_query" }] : []),
        { type: "tool_call", tool: "submit_final_query", args: { query: q.query }, result: "accepted" },
      ],
      final_sql: i % 5 === 0 ? "```sql\n" + q.query + "\n```" : q.query,
      outcome: { status: "submitted", correct: i % 4 !== 0 },
      usage: { input_tokens: 1000 + i, output_tokens: 50 },
    });
    if (i === 10) lines.push("{not json");
    if (i === 20) lines.push({ run: { name: "worker run" }, question: {}, steps: "none" });
    if (i === 30) lines.push(lines[0]); // a duplicate of the first trace
  });
  // A trace written as events, interleaved with whole lines.
  lines.splice(5, 0, {
    kind: "trace",
    trace_id: "ev1",
    run: { name: "events" },
    question: { id: "3" },
    final_sql: "SELECT 1",
  });
  lines.splice(9, 0, { kind: "step", trace_id: "ev1", seq: 0, type: "tool_call", tool: "list_tables", args: {} });
  lines.push({ kind: "step", trace_id: "ev1", seq: 1, type: "reasoning", content: "done" });
  return jsonl(...lines);
}

function omit<T extends object>(value: T, ...keys: string[]): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k))) as Partial<T>;
}

/** Everything an ingest stored, without the upload's own id. */
function stored(sqlite: import("better-sqlite3").Database) {
  const all = (sql: string) => sqlite.prepare(sql).all() as Record<string, unknown>[];
  return {
    traces: all("SELECT * FROM traces ORDER BY id").map((t) => omit(t, "upload_id", "created_at")),
    steps: all("SELECT * FROM steps ORDER BY trace_id, seq"),
    blobs: all("SELECT hash, length(content) AS n FROM blobs ORDER BY hash"),
    runs: all("SELECT id, name, system, model, dataset_id FROM runs ORDER BY id"),
    tools: all("SELECT * FROM run_tool_counts ORDER BY 1, 2, 3"),
    errors: all("SELECT line, message FROM upload_errors ORDER BY line, message"),
  };
}

const saved = process.env.METRON_INGEST_WORKER_BYTES;
afterEach(() => {
  if (saved === undefined) delete process.env.METRON_INGEST_WORKER_BYTES;
  else process.env.METRON_INGEST_WORKER_BYTES = saved;
});

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
    const a = await ingestFile(alone.db.$client, file);
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    const b = await ingestFile(worker.db.$client, file);
    expect(a.read_in_worker).toBe(false);
    expect(b.read_in_worker).toBe(true);
    expect(omit(b, "upload_id", "read_in_worker")).toEqual(omit(a, "upload_id", "read_in_worker"));
    expect(a.inserted).toBe(121); // 120 questions and the trace written as events
    expect(a.duplicates).toBe(1);
    expect(a.errors.map((e) => e.line)).toEqual([14, 25]); // the broken JSON and the invalid trace, by line // the broken JSON and the invalid trace, by line
    expect(a.errors[1].message).toMatch(/steps: .*expected array/);
    expect(a.warnings.length).toBe(25); // the fenced final SQL of every fifth question (one is the duplicate)
    const s = stored(alone.db.$client);
    expect(stored(worker.db.$client)).toEqual(s);
    expect(s.traces.filter((t) => t.gold_count !== null).length).toBeGreaterThan(90); // measured against Spider-de
    expect(s.blobs.length).toBeGreaterThan(0);

    // The same lines again, in 1 kB pieces of one shared buffer (copied, not transferred): all duplicates.
    const again = await ingestStream(worker.db.$client, chunksOf(readFileSync(file), 1000), { expectedBytes: 1 });
    expect(again).toMatchObject({ read_in_worker: true, inserted: 0, duplicates: 122, error_count: 2 });
  });

  it("reads a real foreign file (LiveSQLBench) alike", async () => {
    const file = sharedData("traces", "livesqlbench-adk", "single_turn_samples.json");
    const defaults = { name: "livesql", system: "ADK agent", model: "unknown" };
    process.env.METRON_INGEST_WORKER_BYTES = "off";
    const a = await ingestFile(alone.db.$client, file, { defaults });
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    const b = await ingestFile(worker.db.$client, file, { defaults });
    expect([a.inserted, b.inserted, b.read_in_worker]).toEqual([3, 3, true]);
    // (The worker's store also holds the errors of the second upload above.)
    expect(omit(stored(worker.db.$client), "errors")).toEqual(omit(stored(alone.db.$client), "errors"));
  });

  it("rolls the whole upload back when it is stopped mid-way, and the thread ends", async () => {
    process.env.METRON_INGEST_WORKER_BYTES = "0";
    const before = stored(worker.db.$client);
    let batches = 0;
    await expect(
      ingestStream(worker.db.$client, chunksOf(realisticLines().replaceAll("gpt-test", "gpt-other"), 4096), {
        expectedBytes: 1,
        onProgress: () => {
          if (++batches === 3) throw new Error("stopped by the user");
        },
      }),
    ).rejects.toThrow("stopped by the user");
    expect(stored(worker.db.$client)).toEqual(before);

    async function* failing() {
      yield Buffer.from(realisticLines().slice(0, 20_000).replaceAll("gpt-test", "gpt-third"));
      throw new Error("the connection dropped");
    }
    await expect(ingestStream(worker.db.$client, failing(), { expectedBytes: 1 })).rejects.toThrow(
      "the connection dropped",
    );
    expect(stored(worker.db.$client)).toEqual(before);
    // The store is writable again: nothing holds the write lock.
    const ok = await ingestStream(worker.db.$client, chunksOf(jsonl(JSON.parse(realisticLines().split("\n")[1])), 64), {
      expectedBytes: 1,
    });
    expect(ok.read_in_worker).toBe(true);
  });

  it("is not used below the size threshold, nor when turned off", async () => {
    delete process.env.METRON_INGEST_WORKER_BYTES;
    const small = await ingestStream(worker.db.$client, chunksOf(realisticLines()), { expectedBytes: 1000 });
    expect(small.read_in_worker).toBe(false);
    process.env.METRON_INGEST_WORKER_BYTES = "lots";
    await expect(ingestStream(worker.db.$client, chunksOf("{}\n"), { expectedBytes: 1 })).rejects.toThrow(
      /METRON_INGEST_WORKER_BYTES/,
    );
  });
});

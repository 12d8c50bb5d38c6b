/**
 * One measured phase of the ingest benchmark, in its own process; prints {seconds, cpuSeconds, maxRssMb, traces}.
 * `cpuSeconds` is the process's CPU (user and system, every thread: the writer, the ingest worker, V8's collector)
 * from the phase's start until its commit, as `seconds`.
 */
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import { openConnection, openDb } from "@/lib/db/client";
import { ingestFile } from "@/lib/ingest/ingest-file";
import { prewarmIngestWorker } from "@/lib/cli/ingest-ahead";
import { checkpointsSettled } from "@/lib/ingest/in-worker";
import { isPostgresUrl } from "@/lib/db/sql";
import { openStore } from "@/lib/db/store";
import { splitLines } from "@/lib/ingest/split-lines";
import { syncSearchIndex } from "@/lib/search";

/**
 * The floor: the file's lines parsed and their rows inserted bare. Its trace ids are SHA-256 digests, as Metron's
 * are (a trace's id is the hash of its content), so that its rows land where Metron's do in the keys' indexes;
 * `sequential` numbers them instead (the floor before 2026-12-03: appending to the indexes costs less, ≈ 14 % of the
 * floor's time on 200 MB).
 */
async function floor(
  file: string,
  store: string,
  sequential = false,
): Promise<{ traces: number; committed: number; cpuSeconds: number; closed: number }> {
  const cpuStart = process.cpuUsage();
  openDb(store).$client.close();
  const db: Database.Database = openConnection(store);
  // As Metron's upload: the commit does not checkpoint (timed until the commit; the close's checkpoint apart).
  db.pragma("wal_autocheckpoint = 0");
  // The same row shapes Metron stores, metric columns included (with placeholder values: the floor computes nothing).
  const trace =
    db.prepare(`INSERT INTO traces (id, run_id, question_id, sample, db_id, question_text, evidence, gold_sql, difficulty, final_sql, recorded_correct, status, step_count, upload_id,
    exploratory_calls, gold_count, over_exploration, extra_table_count, calls_schema_listing, calls_schema_exploration, calls_data_inspection, calls_submission, table_sets)
    VALUES (?, 'r', ?, 0, ?, ?, ?, ?, ?, ?, ?, 'submitted', ?, 'u', 12, 2, 10, 1, 1, 14, 16, 1, ?)`);
  const step = db.prepare(
    `INSERT INTO steps (trace_id, seq, type, tool, args, result, content, duration_ms, input_tokens, output_tokens, tool_role, tables, exploratory) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const tableSets = JSON.stringify({
    gold: ["table_a0", "table_b1"],
    goldMethod: "scan",
    explored: ["table_a0", "table_c2", "table_d3"],
    nonGoldExplored: ["table_c2", "table_d3"],
    goldNeverExplored: ["table_b1"],
    final: ["table_a0", "table_e4"],
    finalMethod: "scan",
    extra: ["table_e4"],
    violations: null,
    database: null,
  });
  let n = 0;
  db.exec("BEGIN");
  for await (const line of splitLines(createReadStream(file, { highWaterMark: 4 << 20 }), 1 << 30)) {
    if (!("text" in line)) continue;
    const t = JSON.parse(line.text);
    const id = sequential
      ? (n++).toString(16).padStart(64, "0")
      : createHash("sha256").update(String(n++)).digest("hex");
    const q = t.question;
    trace.run(
      id,
      q.id,
      q.db_id,
      q.text,
      q.evidence,
      q.gold_sql,
      q.difficulty,
      t.final_sql ?? null,
      t.outcome?.correct ? 1 : 0,
      t.steps.length,
      tableSets,
    );
    t.steps.forEach((s: Record<string, never>, i: number) => {
      step.run(
        id,
        i,
        s.type,
        s.tool ?? null,
        s.args === undefined ? null : JSON.stringify(s.args),
        s.result === undefined ? null : JSON.stringify(s.result),
        s.content ?? null,
        s.duration_ms ?? null,
        (s.usage as { input_tokens?: number })?.input_tokens ?? null,
        (s.usage as { output_tokens?: number })?.output_tokens ?? null,
        s.tool ? "data_inspection" : null,
        s.tool ? '["table_a0"]' : null,
        0,
      );
    });
  }
  db.exec("COMMIT");
  const committed = performance.now();
  const cpuSeconds = cpuSecondsSince(cpuStart);
  db.close(); // the last connection: folds the log into the store file
  return { traces: n, committed, cpuSeconds, closed: performance.now() };
}

/** Ingests the file, then (SQLite) builds its search index as the server would; the two times apart. */
async function ingest(
  file: string,
  store: string,
): Promise<{
  traces: number;
  seconds: number;
  indexSeconds?: number;
  checkpointSeconds?: number;
  ingestRssMb?: number;
  cpuSeconds: number;
}> {
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  // As `metron ingest` does (lib/cli/main.ts): the worker's modules load while the store opens.
  if (!isPostgresUrl(store) && process.env.METRON_BENCH_PREWARM !== "0") prewarmIngestWorker(statSync(file).size);
  // A SQLite file, or a PostgreSQL URL (the same pipeline through Sql: the batched upload writer, lib/ingest/batched-writer.ts).
  const sql = await openStore(isPostgresUrl(store) ? store : undefined); // SQLite: DATABASE_PATH is `store`
  const report = await ingestFile(sql, file);
  if (report.error_count) console.error(report.errors.slice(0, 5));
  const seconds = (performance.now() - start) / 1000;
  const cpuSeconds = cpuSecondsSince(cpuStart);
  // Peak RSS until the upload committed, before the index build (whose peak the phase's own figure includes).
  const ingestRssMb = process.resourceUsage().maxRSS / 1024;
  // The checkpoint the commit left to the ingest worker runs beside the index build (in-worker.ts checkpointAfter):
  // timed by the worker (this thread hears of its end only between the index's batches).
  const checkpointed = checkpointsSettled();
  let indexSeconds: number | undefined;
  if (!isPostgresUrl(store)) {
    const t = performance.now();
    while ((await syncSearchIndex(sql, { budgetMs: 60_000, readAhead: true })).pending > 0);
    indexSeconds = (performance.now() - t) / 1000;
  }
  const checkpointSeconds = (await checkpointed).reduce((sum, c) => sum + (c?.ms ?? NaN), 0) / 1000;
  await sql.close();
  return { traces: report.inserted, seconds, indexSeconds, checkpointSeconds, ingestRssMb, cpuSeconds };
}

export async function ingestPhase([phase, file, store]: string[]): Promise<number> {
  let result: Awaited<ReturnType<typeof ingest>>;
  if (phase === "floor" || phase === "floor-seq") {
    const start = performance.now();
    const { traces, committed, cpuSeconds, closed } = await floor(file, store, phase === "floor-seq");
    result = {
      traces,
      seconds: (committed - start) / 1000,
      cpuSeconds,
      checkpointSeconds: (closed - committed) / 1000,
    };
  } else result = await ingest(file, store);
  // Peak RSS over the whole phase (the index build included).
  console.log(JSON.stringify({ ...result, maxRssMb: process.resourceUsage().maxRSS / 1024 }));
  return 0;
}

/** The process's CPU time since `from`, user and system, over all its threads (getrusage of the process). */
function cpuSecondsSince(from: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(from);
  return (user + system) / 1e6;
}

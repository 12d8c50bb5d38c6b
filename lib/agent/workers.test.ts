/**
 * Dedicated workers (`metron worker`): two processes share one store's sweep; one is killed with SIGKILL half-way;
 * the other takes its jobs back and the sweep ends with exactly one trace per job. On the SQLite store, and on a
 * PostgreSQL server when METRON_TEST_DATABASE_URL names one (`npm test` starts a private one).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import path from "node:path";
import type { Sql } from "@/lib/db/sql";
import { exportStore, importStore } from "@/lib/db/transfer";
import { tempDb } from "@/lib/testing/db";
import { tempPostgres, testPostgresUrl } from "@/lib/testing/postgres";
import { startFakeOpenAI, type FakeServer } from "@/lib/testing/fake-openai";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { serverRunsWorker } from "./jobs";
import { createSweep, sweepStatus } from "./sweeps";
import { many, one, raw } from "@/lib/db/typed";
import type { RawBuilder } from "kysely";

const lite = tempDb();
let fake: FakeServer;
const children: ChildProcess[] = [];
let exported: string;

beforeAll(async () => {
  await importSpiderDe(lite);
  exported = path.join(lite.dir, "dataset-export");
  await exportStore(lite.sql, exported);
  // Each answer takes a moment, so that a worker is killed in the middle of its jobs.
  fake = await startFakeOpenAI(() => ({
    delayMs: 60,
    then: {
      toolCalls: [{ name: "submit_final_query", args: { query: "SELECT 1" } }],
      usage: { prompt: 50, completion: 5 },
    },
  }));
}, 120_000);
afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await fake.close();
  lite.cleanup();
});

it("METRON_WORKERS=0 leaves the jobs to dedicated workers", () => {
  expect(serverRunsWorker({})).toBe(true);
  expect(serverRunsWorker({ METRON_WORKERS: "0" })).toBe(false);
  expect(serverRunsWorker({ METRON_JOBS: "off" })).toBe(false);
  expect(() => serverRunsWorker({ METRON_WORKERS: "many" })).toThrow(/METRON_WORKERS/);
});

const engines = ["SQLite", ...(testPostgresUrl ? ["PostgreSQL"] : [])];

describe.each(engines)("metron worker on %s", (engine) => {
  let sql: Sql;
  let env: Record<string, string>;
  let cleanup: () => Promise<void> | void;
  beforeAll(async () => {
    if (engine === "PostgreSQL") {
      const pg = await tempPostgres();
      await importStore(pg.sql, exported); // Spider-de, moved with metron export / import
      sql = pg.sql;
      env = { DATABASE_URL: pg.url };
      cleanup = pg.cleanup;
    } else {
      sql = lite.sql;
      env = { DATABASE_PATH: lite.file };
      cleanup = () => undefined;
    }
  }, 120_000);
  afterAll(() => cleanup());

  const count = async (query: RawBuilder<unknown>) => Number((await one<{ n: number }>(sql, query as never))!.n);

  function startWorker(name: string) {
    const { DATABASE_URL: _u, DATABASE_PATH: _p, ...inherited } = process.env;
    void _u;
    void _p;
    const child = spawn(process.execPath, [path.resolve("scripts/metron.mjs"), "worker", "--concurrency", "4"], {
      env: { ...inherited, ...env, METRON_OPENAI_COMPATIBLE_URL: fake.url, METRON_JOB_POLL_MS: "50" },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let log = "";
    child.stderr!.on("data", (d: Buffer) => (log += d));
    children.push(child);
    const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
    return { name, child, exited, log: () => log };
  }

  /** A sweep of Spider-de's first `questions` questions, answered by the fake model. */
  async function sweepOf(questions: number, options: { samples?: number; concurrency: number; name: string }) {
    const ids = (
      await many(
        sql,
        raw<{
          id: string;
        }>`SELECT question_id AS id FROM questions WHERE dataset_id = 'spider-de' ORDER BY position, question_id LIMIT ${questions}`,
      )
    ).map((q) => q.id);
    process.env.METRON_OPENAI_COMPATIBLE_URL = fake.url; // the provider is configured where the sweep is created
    return createSweep(sql, {
      dataset: "spider-de",
      selection: { kind: "ids", ids },
      provider: "compatible",
      model: "fake",
      variant: "none",
      ...options,
    });
  }

  it("two workers, one killed with SIGKILL half-way through a 200-job sweep: exactly 200 traces", async () => {
    const { runId, jobs } = await sweepOf(40, { samples: 5, concurrency: 8, name: "two workers" });
    expect(jobs).toBe(200);
    const a = startWorker("a");
    const b = startWorker("b");
    const done = () => count(raw`SELECT count(*) AS n FROM jobs WHERE sweep_id = ${runId} AND state = 'done'`);
    const byWorker = (w: ChildProcess) =>
      count(
        raw`SELECT count(*) AS n FROM jobs WHERE sweep_id = ${runId} AND state = 'running' AND worker LIKE ${`%:${w.pid}:%`}`,
      );
    // Both take jobs; kill one once about half are done, while it holds jobs. A worker's finished jobs no longer
    // name it, so that b took jobs is seen while it holds them, at any poll before the kill (on a loaded machine b
    // can be between two claims at the very poll that finds a holding jobs with 100 done).
    let bHeldJobs = false;
    await expect
      .poll(
        async () => {
          bHeldJobs ||= (await byWorker(b.child)) > 0;
          return bHeldJobs && (await done()) >= 100 && (await byWorker(a.child)) > 0;
        },
        { timeout: 60_000, interval: 10 },
      )
      .toBe(true);
    a.child.kill("SIGKILL");
    await a.exited;
    await expect
      .poll(async () => (await sweepStatus(sql, runId))!.state, { timeout: 60_000, interval: 100 })
      .toBe("done");
    expect(await count(raw`SELECT count(*) AS n FROM traces WHERE run_id = ${runId}`)).toBe(200);
    expect(
      await count(raw`SELECT count(DISTINCT question_id || ':' || sample) AS n FROM traces WHERE run_id = ${runId}`),
    ).toBe(200);
    expect(await count(raw`SELECT count(*) AS n FROM jobs WHERE sweep_id = ${runId} AND state = 'done'`)).toBe(200);
    // Jobs the killed worker held were taken back and run again, and say so.
    expect(await count(raw`SELECT count(*) AS n FROM jobs WHERE sweep_id = ${runId} AND attempts > 1`)).toBeGreaterThan(
      0,
    );
    // Every trace was judged (execution accuracy) where it was stored.
    expect(await count(raw`SELECT count(*) AS n FROM traces WHERE run_id = ${runId} AND ex_outcome IS NULL`)).toBe(0);
    b.child.kill("SIGTERM");
    expect(await b.exited).toBe(0);
  }, 180_000);

  it("a worker stopped with SIGTERM puts its running jobs back in the queue, and the next worker runs them", async () => {
    const { runId } = await sweepOf(12, { concurrency: 4, name: "stopped worker" });
    const c = startWorker("c");
    const running = () => count(raw`SELECT count(*) AS n FROM jobs WHERE sweep_id = ${runId} AND state = 'running'`);
    await expect.poll(running, { timeout: 30_000, interval: 5 }).toBeGreaterThan(0);
    c.child.kill("SIGTERM");
    expect(await c.exited).toBe(0);
    expect(c.log()).toContain("stopped");
    expect(await running()).toBe(0);
    expect(
      await count(raw`SELECT count(*) AS n FROM jobs WHERE sweep_id = ${runId} AND state IN ('failed', 'cancelled')`),
    ).toBe(0);
    const d = startWorker("d");
    await expect
      .poll(async () => (await sweepStatus(sql, runId))!.state, { timeout: 60_000, interval: 100 })
      .toBe("done");
    expect(await count(raw`SELECT count(*) AS n FROM traces WHERE run_id = ${runId}`)).toBe(12);
    d.child.kill("SIGTERM");
    await d.exited;
  }, 120_000);
});

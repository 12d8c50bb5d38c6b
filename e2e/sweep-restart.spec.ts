// A server killed with SIGKILL half-way through a sweep resumes it when it starts again: every job once, none lost.
// It runs its own server (the production build) on its own store, so it can kill it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { E2E_POSTGRES, freshDatabase, queryStore, storeDir, storeEnv } from "./store";

const ROOT = path.resolve(import.meta.dirname, "..");
const PORT = Number(process.env.E2E_RESTART_PORT ?? 3102);
const DIR = storeDir("restart");
const BASE = `http://127.0.0.1:${PORT}`;
const env = {
  ...process.env,
  ...storeEnv("restart"),
  METRON_SIM_STEP_DELAY_MS: "60",
  METRON_JOB_POLL_MS: "100",
};

function startServer(): ChildProcess {
  // Its own process group, so that SIGKILL reaches every process of it.
  return spawn(path.join(ROOT, "node_modules", ".bin", "next"), ["start", "-p", String(PORT), "-H", "127.0.0.1"], {
    cwd: ROOT,
    env,
    detached: true,
    stdio: "ignore",
  });
}

async function ready(): Promise<void> {
  await expect
    .poll(async () => (await fetch(`${BASE}/api/schema/trace`).catch(() => null))?.status ?? 0, { timeout: 60_000 })
    .toBe(200);
}

test("a sweep survives a SIGKILL of the server: restarted, it finishes with exactly one trace per question", async () => {
  test.setTimeout(180_000);
  rmSync(DIR, { recursive: true, force: true });
  mkdirSync(DIR, { recursive: true });
  if (E2E_POSTGRES) freshDatabase("restart");
  const seeded = spawnSync(process.execPath, ["scripts/metron.mjs", "demo"], { cwd: ROOT, env });
  expect(seeded.status).toBe(0);
  let server = startServer();
  try {
    await ready();
    const res = await fetch(`${BASE}/api/sweeps`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        dataset: "demo-retail",
        selection: { kind: "all" },
        provider: "simulated",
        model: "sim-careful",
        variant: "oracle",
        concurrency: 2,
      }),
    });
    expect(res.status).toBe(200);
    const { runId, jobs } = (await res.json()) as { runId: string; jobs: number };
    expect(jobs).toBe(42);
    const status = async () =>
      (await (await fetch(`${BASE}/api/sweeps/${runId}`)).json()) as {
        state: string;
        jobs: { done: number; running: number; total: number };
      };
    await expect
      .poll(async () => (await status()).jobs.done, { timeout: 60_000, intervals: [100] })
      .toBeGreaterThanOrEqual(15);
    process.kill(-server.pid!, "SIGKILL");
    await new Promise((r) => server.once("exit", r));

    const count = (sql: string) => queryStore("restart", sql, [runId])[0].n as number;
    {
      const done = count("SELECT count(*) AS n FROM jobs WHERE sweep_id = ? AND state = 'done'");
      expect(done).toBeLessThan(42);
      expect(count("SELECT count(*) AS n FROM jobs WHERE sweep_id = ? AND state = 'running'")).toBeGreaterThan(0);

      server = startServer(); // its worker takes the dead server's jobs back and finishes the sweep
      await ready();
      await expect.poll(async () => (await status()).state, { timeout: 120_000, intervals: [250] }).toBe("done");
      expect((await status()).jobs).toMatchObject({ done: 42, running: 0, total: 42 });
      expect(count("SELECT count(*) AS n FROM traces WHERE run_id = ?")).toBe(42);
      expect(count("SELECT count(DISTINCT question_id) AS n FROM traces WHERE run_id = ?")).toBe(42);
      expect(count("SELECT count(*) AS n FROM traces WHERE run_id = ? AND ex_outcome IS NULL")).toBe(0);
    }
  } finally {
    try {
      process.kill(-server.pid!, "SIGKILL");
    } catch {
      /* already gone */
    }
    rmSync(DIR, { recursive: true, force: true });
  }
});

/**
 * `npm run bench -- sweep [--jobs 1000] [--concurrency 8] [--rounds 3]`: the durable job queue against calling the loop
 * directly. On a fresh store with the simulated demo (no shared data), the same number of jobs (demo questions ×
 * samples, simulated provider, no delay) runs twice at the same concurrency: through a sweep (claim, lease,
 * store, evaluate, record: `workSweepToEnd`), and directly (the same loop, store and evaluation per job, in a
 * plain promise pool, no queue), after an untimed warm-up pass over every question (gold results cached), in
 * interleaved rounds (the order alternating). Prints jobs per second of each and the queue's overhead per job, the
 * median of the rounds. Target: under 10 ms per job.
 */
import { asSql, sqliteSql } from "@/lib/db/sql";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openConnection, openDb } from "@/lib/db/client";
import { jobSettings, runJobLoop, storeJobTrace, type JobRow } from "@/lib/agent/jobs";
import { createSweep, sweepStatus, workSweepToEnd } from "@/lib/agent/sweeps";
import { seedDemo } from "@/lib/demo/seed";
import { closeSharedSandbox } from "@/lib/sandbox/sandbox";

export async function benchSweep(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      jobs: { type: "string", default: "1000" },
      concurrency: { type: "string", default: "8" },
      rounds: { type: "string", default: "3" },
    },
  });
  const jobs = Number(values.jobs);
  const concurrency = Number(values.concurrency);
  const rounds = Math.max(1, Number(values.rounds));
  process.env.METRON_SIM_STEP_DELAY_MS = "0";
  process.env.METRON_JOB_POLL_MS ??= "20";
  process.env.METRON_SWEEP_MAX_SAMPLES = "1000";
  process.env.METRON_SWEEP_MAX_CONCURRENCY = String(Math.max(concurrency, 8));
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-bench-sweep-"));
  const file = path.join(dir, "store.db");
  const db = openDb(file);
  try {
    await seedDemo(asSql(db.$client), { dir: path.join(dir, "demo") });
    const questions = (
      db.$client.prepare("SELECT count(*) AS n FROM questions WHERE dataset_id = 'demo-retail'").get() as { n: number }
    ).n;
    const samples = Math.ceil(jobs / questions);
    const request = (name: string) => ({
      dataset: "demo-retail",
      selection: { kind: "all" as const },
      provider: "simulated" as const,
      model: "sim-careful",
      variant: "oracle" as const,
      samples,
      concurrency,
      name,
    });
    const open = () => sqliteSql(openConnection(file));
    console.log(
      `${questions} demo questions × ${samples} samples = ${questions * samples} jobs at concurrency ${concurrency} (simulated, no delay)`,
    );

    // Warm-up (not timed): every question once, so gold results are cached and code is compiled for both passes.
    const warm = await createSweep(asSql(db.$client), { ...request("warm-up"), samples: 1 });
    await workSweepToEnd(open, warm.runId);

    // Directly: the loop, the store and the evaluation of each job, in a promise pool.
    const runDirect = async (name: string) => {
      const direct = await createSweep(asSql(db.$client), request(name));
      db.$client.prepare("UPDATE sweeps SET state = 'paused' WHERE run_id = ?").run(direct.runId); // no worker takes it
      const rows = db.$client
        .prepare("SELECT * FROM jobs WHERE sweep_id = ? ORDER BY rowid")
        .all(direct.runId) as JobRow[];
      const settings = jobSettings();
      let next = 0;
      const t0 = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          const sqlite = open();
          try {
            while (next < rows.length) {
              const row = rows[next++];
              const job = {
                controller: new AbortController(),
                tokens: 0,
                events: [],
                listeners: new Set<() => void>(),
              };
              const result = await runJobLoop(sqlite, row, job, settings);
              await storeJobTrace(sqlite, row, result);
            }
          } finally {
            await sqlite.close();
          }
        }),
      );
      return { ms: performance.now() - t0, n: rows.length };
    };
    // Through the queue.
    const runQueued = async (name: string) => {
      const queued = await createSweep(asSql(db.$client), request(name));
      const t1 = performance.now();
      await workSweepToEnd(open, queued.runId);
      const ms = performance.now() - t1;
      const status = (await sweepStatus(asSql(db.$client), queued.runId))!;
      if (status.jobs.done !== status.jobs.total)
        throw new Error(`the sweep finished ${status.jobs.done} of ${status.jobs.total}`);
      return { ms, n: status.jobs.total };
    };

    // Interleaved rounds, the order alternating, so that a busy neighbour slows both alike; the figures are the
    // medians of the rounds' own ratios and differences.
    const ratios: number[] = [];
    const overheads: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const first = r % 2 === 0 ? "direct" : "queued";
      const a = first === "direct" ? await runDirect(`direct ${r + 1}`) : await runQueued(`queued ${r + 1}`);
      const b = first === "direct" ? await runQueued(`queued ${r + 1}`) : await runDirect(`direct ${r + 1}`);
      const [direct, queued] = first === "direct" ? [a, b] : [b, a];
      const perJob = ((queued.ms - direct.ms) / direct.n) * concurrency;
      ratios.push(queued.ms / direct.ms);
      overheads.push(perJob);
      console.log(
        `round ${r + 1} (${first} first): direct ${(direct.n / (direct.ms / 1000)).toFixed(1)} jobs/s (${(direct.ms / 1000).toFixed(1)} s), queue ${(queued.n / (queued.ms / 1000)).toFixed(1)} jobs/s (${(queued.ms / 1000).toFixed(1)} s), overhead ${perJob.toFixed(2)} ms a job in each of the ${concurrency} slots`,
      );
    }
    const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    const overhead = median(overheads);
    console.log(
      `\nmedian of ${rounds} rounds: queue overhead ${overhead.toFixed(2)} ms per job (in each of the ${concurrency} slots); target < 10 ms: ${overhead < 10 ? "met" : "missed"}`,
    );
    console.log(`median ratio queue/direct: ${median(ratios).toFixed(2)}`);
  } finally {
    db.$client.close();
    await closeSharedSandbox();
    rmSync(dir, { recursive: true, force: true });
  }
  return 0;
}

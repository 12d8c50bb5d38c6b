// Harness sweeps (issue 31) with custom-command profiles: a small agent script that speaks MCP to the real `metron
// mcp` (lib/testing/harness-agent.mjs), one that hangs, one that fails, one that writes nothing; and the grid of
// variants through the real CLI, saved as an experiment whose matrix has a cell per variant.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadOverview } from "@/lib/db/queries/overview";
import type { Sql } from "@/lib/db/sql";
import { engineStore, type EngineStore } from "@/lib/testing/engines";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { harnessInstalled, loadHarnesses, HarnessConfigError } from "./harnesses";
import { stopServerWorker } from "./jobs";
import { createSweep, sweepStatus, workSweepToEnd } from "./sweeps";
import { many, one, raw } from "@/lib/db/typed";
import type { RawBuilder } from "kysely";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
const AGENT = path.join(ROOT, "lib", "testing", "harness-agent.mjs");

describe("harness sweeps with custom-command profiles (SQLite store)", () => {
  let store: EngineStore;
  let sql: Sql;
  let dir: string;
  const saved = { harnesses: process.env.METRON_HARNESSES, db: process.env.DATABASE_PATH };
  // Spider-de questions whose gold SQL runs (2–9 read a column `alter` that the translation broke).
  const questions = ["0", "1", "10", "11", "14"];
  const gold = new Map<string, string>();

  beforeAll(async () => {
    store = await engineStore("SQLite");
    sql = store.sql;
    await importSpiderDe(store);
    for (const q of await many(
      sql,
      raw<{
        id: string;
        gold: string;
      }>`SELECT question_id AS id, gold_sql AS gold FROM questions WHERE dataset_id = 'spider-de'`,
    ))
      gold.set(q.id, q.gold);
    dir = mkdtempSync(path.join(os.tmpdir(), "metron-harness-"));
    // Four questions answered with their gold SQL, 14 with a wrong query.
    const answers = Object.fromEntries(questions.map((q) => [q, q === "14" ? "SELECT 1" : gold.get(q)!]));
    const file = path.join(dir, "metron.harnesses.json");
    writeFileSync(
      path.join(dir, "server-secret.jsonl"),
      JSON.stringify({ steps: [{ type: "message", role: "user", content: "server-secret-marker" }] }) + "\n",
    );
    writeFileSync(
      file,
      JSON.stringify({
        scripted: {
          kind: "command",
          command: [process.execPath, AGENT],
          model: "scripted-1",
          env: { ANSWERS: JSON.stringify(answers) },
          timeoutS: 120,
        },
        hangs: { kind: "command", command: [process.execPath, "-e", "setTimeout(() => {}, 1e9)"], timeoutS: 2 },
        fails: {
          kind: "command",
          command: [
            process.execPath,
            "-e",
            "console.error('boom: the model said no (key sk-test-123456789012345678901234)'); process.exit(3)",
          ],
        },
        silent: { kind: "command", command: [process.execPath, "-e", "0"] },
        // Its "trace" is a link to a file of the server's: a model driving a harness could make one.
        linker: {
          kind: "command",
          command: [
            process.execPath,
            "-e",
            `require("fs").symlinkSync(${JSON.stringify(path.join(dir, "server-secret.jsonl"))}, process.env.METRON_OUTPUT_DIR + "/trace.jsonl")`,
          ],
        },
        slow: {
          kind: "command",
          command: [process.execPath, AGENT],
          model: "slow-1",
          env: { ANSWERS: JSON.stringify(answers), DELAY_MS: "700" },
        },
      }),
    );
    process.env.METRON_HARNESSES = file;
    process.env.DATABASE_PATH = store.env.DATABASE_PATH;
  }, 120_000);
  afterAll(async () => {
    await stopServerWorker();
    process.env.METRON_HARNESSES = saved.harnesses;
    if (saved.db === undefined) delete process.env.DATABASE_PATH;
    else process.env.DATABASE_PATH = saved.db;
    await store.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  const sweepOf = (harness: string, ids: string[], extra: object = {}) =>
    createSweep(sql, {
      dataset: "spider-de",
      selection: { kind: "ids", ids },
      provider: "simulated",
      model: "",
      harness,
      variant: "computed",
      concurrency: 2,
      ...extra,
    });

  it("reads the profiles, refuses a bad one naming its field, and says whether each is installed", () => {
    const profiles = loadHarnesses();
    expect(Object.keys(profiles)).toEqual(["scripted", "hangs", "fails", "silent", "linker", "slow"]);
    expect(harnessInstalled(profiles.scripted).installed).toBe(true);
    const bad = path.join(dir, "bad.json");
    writeFileSync(bad, JSON.stringify({ x: { kind: "command", command: [] } }));
    const before = process.env.METRON_HARNESSES;
    process.env.METRON_HARNESSES = bad;
    try {
      expect(() => loadHarnesses()).toThrow(HarnessConfigError);
      expect(() => loadHarnesses()).toThrow(/profile "x": command: /);
    } finally {
      process.env.METRON_HARNESSES = before;
    }
  });

  it("five Spider-de questions through the script: five traces with directives, tokens, model and EX", async () => {
    const { runId } = await sweepOf("scripted", questions);
    await workSweepToEnd(store.open, runId);
    const status = (await sweepStatus(sql, runId))!;
    expect(status).toMatchObject({ state: "done", harness: { name: "scripted", kind: "command" }, tokens: 5 * 110 });
    expect(status.jobs).toMatchObject({ done: 5, failed: 0 });
    const traces = await many(
      sql,
      raw<{
        q: string;
        directives: string | null;
        input: number;
        output: number;
        ex: string;
        model: string;
        meta: string;
        steps: number;
      }>`SELECT t.question_id AS q, t.directives, t.input_tokens AS input, t.output_tokens AS output, t.ex_outcome AS ex,
         r.model, t.meta, t.tool_call_count AS steps
       FROM traces t JOIN runs r ON r.id = t.run_id WHERE t.run_id = ${runId} ORDER BY t.question_id`,
    );
    expect(traces.map((t) => t.q)).toEqual(questions);
    for (const t of traces) {
      expect(JSON.parse(t.directives!)).toMatchObject({ strategy: "computed" }); // from the environment's trace
      expect([t.input, t.output]).toEqual([100, 10]); // from the harness's own file
      expect(t.model).toBe("scripted:scripted-1");
      expect(JSON.parse(t.meta).harness).toMatchObject({ name: "scripted", kind: "command", files: ["trace.jsonl"] });
      expect(t.steps).toBeGreaterThanOrEqual(2);
    }
    expect(traces.map((t) => t.ex)).toEqual(["correct", "correct", "correct", "correct", "wrong_result"]);
    // The jobs' folders (their HOMEs) are gone once their traces are read.
    const jobs = path.join(path.dirname(store.env.DATABASE_PATH), "harness-jobs");
    expect(existsSync(jobs) ? readdirSync(jobs) : []).toEqual([]);
  });

  it("a harness that hangs is killed at its wall time; one that fails or writes nothing fails its job, saying why", async () => {
    for (const [name, reason] of [
      ["hangs", /killed at its wall time of 2 s \(timeoutS of profile "hangs"\)/],
      ["fails", /exited with 3: boom: the model said no/],
      ["silent", /exited 0 but wrote no file in METRON_OUTPUT_DIR/],
      ["linker", /wrote no file in METRON_OUTPUT_DIR \(symbolic links are not followed: trace\.jsonl\)/],
    ] as const) {
      const started = Date.now();
      const { runId } = await sweepOf(name, ["0"]);
      await workSweepToEnd(store.open, runId);
      const status = (await sweepStatus(sql, runId))!;
      expect([name, status.jobs.failed, status.jobs.done]).toEqual([name, 1, 0]);
      expect(status.errors[0].error).toMatch(reason);
      expect(status.errors[0].error).not.toContain("sk-test-123456789012345678901234"); // scrubbed
      if (name === "hangs") expect(Date.now() - started).toBeLessThan(60_000);
      // Its trace is kept, with the reason, so the run page shows what happened.
      const t = await one(
        sql,
        raw<{
          status: string;
          error: string;
        }>`SELECT status, outcome_error AS error FROM traces WHERE run_id = ${runId}`,
      );
      expect(t).toMatchObject({ status: "error" });
      expect(t!.error).toMatch(reason);
    }
    // The linked file's content reached no table.
    expect(
      await one(sql, raw<{ n: number }>`SELECT count(*) AS n FROM steps WHERE content LIKE '%server-secret-marker%'`),
    ).toMatchObject({ n: 0 });
  }, 120_000);

  it("a harness file over METRON_HARNESS_MAX_FILE_BYTES is not read: the job fails naming the limit", async () => {
    process.env.METRON_HARNESS_MAX_FILE_BYTES = "100";
    try {
      const { runId } = await sweepOf("scripted", ["0"]);
      await workSweepToEnd(store.open, runId);
      const status = (await sweepStatus(sql, runId))!;
      expect(status.jobs.failed).toBe(1);
      expect(status.errors[0].error).toMatch(
        /trace\.jsonl: \d+ bytes, over the limit of 100 bytes \(METRON_HARNESS_MAX_FILE_BYTES\)/,
      );
    } finally {
      delete process.env.METRON_HARNESS_MAX_FILE_BYTES;
    }
  });

  it("the grid through the CLI: 2 questions × 3 variants, one saved experiment with a cell per variant", async () => {
    const r = spawnSync(
      process.execPath,
      [
        path.join(ROOT, "scripts", "metron.mjs"),
        "sweep",
        "--harness",
        "scripted",
        "--dataset",
        "spider-de",
        "--questions",
        "0,1",
        "--variant",
        "none,computed,oracle",
        "--experiment",
        "Sophrosyne grid",
        "--concurrency",
        "2",
      ],
      { env: { ...process.env, ...store.env }, encoding: "utf8", timeout: 300_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const id = r.stderr.match(/experiment (\S+): 3 runs/)?.[1];
    expect(id).toBeTruthy();
    const experiment = await one(
      sql,
      raw<{ runIds: string }>`SELECT run_ids AS "runIds" FROM experiments WHERE id = ${id!}`,
    );
    const runIds = JSON.parse(experiment!.runIds) as string[];
    expect(runIds).toHaveLength(3);
    const overview = await loadOverview(sql, { runIds });
    const g = overview.groups.find((x) => x.group === "spider-de")!;
    expect(g.systems.sort()).toEqual(["No Directives", "Sophrosyne", "Sophrosyne-Oracle"]);
    expect(g.models).toEqual(["scripted:scripted-1"]);
    for (const s of g.systems) expect(g.cells["scripted:scripted-1"][s]!.stats.questions).toBe(2);
  }, 300_000);

  it("SIGKILL of the process running a harness sweep half-way, then resume: one trace per question × sample", async () => {
    const cli = path.join(ROOT, "scripts", "metron.mjs");
    const env = { ...process.env, ...store.env };
    const child = spawn(
      process.execPath,
      [
        cli,
        "sweep",
        "--harness",
        "slow",
        "--dataset",
        "spider-de",
        "--questions",
        questions.join(","),
        "--samples",
        "2",
        "--concurrency",
        "2",
        "--json",
      ],
      { env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let runId = "";
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
      runId ||= /sweep started: run (\w+)/.exec(stderr)?.[1] ?? "";
    });
    const exited = new Promise<void>((r) => child.on("exit", () => r()));
    const count = async (query: RawBuilder<unknown>) => Number((await one<{ n: number }>(sql, query as never))!.n);
    const doneJobs = () => count(raw`SELECT count(*) AS n FROM jobs WHERE sweep_id = ${runId} AND state = 'done'`);
    for (;;) {
      await new Promise((r) => setTimeout(r, 100));
      if (!runId) continue;
      if ((await doneJobs()) >= 3) break;
    }
    child.kill("SIGKILL");
    await exited;
    expect(
      await count(raw`SELECT count(*) AS n FROM jobs WHERE sweep_id = ${runId} AND state IN ('queued', 'running')`),
    ).toBeGreaterThan(0);
    const resumed = spawnSync(process.execPath, [cli, "sweep", "resume", runId, "--json"], {
      env,
      encoding: "utf8",
      timeout: 240_000,
    });
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ run_id: runId, jobs: 10, done: 10, failed: 0 });
    expect(await count(raw`SELECT count(*) AS n FROM traces WHERE run_id = ${runId}`)).toBe(10);
    expect(
      await count(raw`SELECT count(DISTINCT question_id || ':' || sample) AS n FROM traces WHERE run_id = ${runId}`),
    ).toBe(10);
  }, 300_000);
});

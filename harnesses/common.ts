/**
 * What every harness test of the suite shares: the question (Spider-de 22, gold tables konzert and stadion), the
 * script the fake model plays, its usage per call, the store with the dataset imported, `metron mcp` as a command
 * line, and the checks of a stored trace against what the script did.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, expect } from "vitest";
import type { Sql } from "@/lib/db/sql";
import { evaluateRun } from "@/lib/eval/evaluate-run";
import { startFakeLlm, type FakeLlm, type ScriptStep } from "@/lib/testing/fake-llm";
import { engineStore, type EngineStore } from "@/lib/testing/engines";
import { importSpiderDe } from "@/lib/testing/spider-de";

export const ROOT = path.resolve(import.meta.dirname, "..");
export const BIN = path.join(ROOT, "harnesses", "node_modules", ".bin");
export const QUESTION_ID = "22";
export const GOLD_22 =
  "SELECT T2.name , count(*) FROM konzert AS T1 JOIN stadion AS T2 ON T1.stadion_id = T2.stadion_id GROUP BY T1.stadion_id";
export const USAGE = { input: 1000, cached: 600, output: 20 };

/** The script every harness plays: list, describe a gold and a non-gold table, a probe, an error, 0 rows, submit. */
export const SCRIPT: ScriptStep[] = [
  { tool: "list_tables", args: {} },
  { tool: "describe_table", args: { table_name: "konzert" } },
  { tool: "describe_table", args: { table_name: "sänger" } },
  { tool: "read_query", args: { query: "SELECT count(*) FROM stadion" } },
  { tool: "read_query", args: { query: "SELECT * FROM konzerte" } },
  { tool: "read_query", args: { query: "SELECT * FROM konzert WHERE 0" } },
  { tool: "submit_final_query", args: { query: GOLD_22 } },
  { text: "Done: the query is submitted." },
];
export const TOOLS_CALLED = SCRIPT.flatMap((s) => ("tool" in s ? [s.tool] : []));

/** A fresh SQLite store with Spider-de imported, and a folder for the harness's own files (its HOME). */
export type HarnessStore = EngineStore & { home: string };

export async function harnessStore(): Promise<HarnessStore> {
  const store = await engineStore("SQLite");
  await importSpiderDe(store);
  const home = path.join(store.dir, "home");
  mkdirSync(home, { recursive: true });
  return { ...store, home };
}

/** `metron mcp` for question 22 as argv (the compiled CLI, as a user's host starts it). */
export function metronMcp(opts: { variant: "none" | "computed" | "oracle"; traceOut?: string; http?: number }) {
  return [
    process.execPath,
    path.join(ROOT, "scripts", "metron.mjs"),
    "mcp",
    "--dataset",
    "spider-de",
    "--question",
    QUESTION_ID,
    "--variant",
    opts.variant,
    ...(opts.traceOut ? ["--trace-out", opts.traceOut] : []),
    ...(opts.http ? ["--http", String(opts.http)] : []),
  ];
}

/** `metron <args>` against the store, as a user runs it; its output, or a thrown error with its stderr. */
export function metron(store: EngineStore, args: string[]): string {
  const r = spawnSync(process.execPath, [path.join(ROOT, "scripts", "metron.mjs"), ...args], {
    env: { ...process.env, ...store.env },
    encoding: "utf8",
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`metron ${args.join(" ")} exited ${r.status}:\n${r.stdout}\n${r.stderr}`);
  return r.stdout + r.stderr;
}

/**
 * Runs a harness's command with no stdin (some read it to the end), in its own environment, killed after
 * `timeoutMs`; resolves with its output, rejects with it when it exits non-zero.
 */
export function runHarness(
  command: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string | undefined>; timeoutMs?: number },
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: opts.cwd,
      env: opts.env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d));
    child.stderr.on("data", (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), opts.timeoutMs ?? 90_000);
    child.on("error", reject);
    child.on("close", (code: number | null, signal: string | null) => {
      clearTimeout(timer);
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(
          new Error(`${path.basename(command)} ${args.join(" ")} ended with ${code ?? signal}:\n${stdout}\n${stderr}`),
        );
    });
  });
}

type TraceRow = Record<string, unknown> & { id: string; run_id: string };
type StepRow = { tool: string; args: string; result: string | null; error: string | null };

/** The one trace of the run named `run` (of its question `questionId`, when given), and its tool calls in order. */
export async function storedTrace(
  sql: Sql,
  run: string,
  questionId?: string,
): Promise<{ trace: TraceRow; calls: StepRow[] }> {
  const all = await sql.compiled.all<TraceRow>(
    `SELECT t.*, r.id AS run_id, r.model AS run_model, d.name AS dataset_name
       FROM traces t JOIN runs r ON r.id = t.run_id LEFT JOIN datasets d ON d.id = r.dataset_id WHERE r.name = ?`,
    [run],
  );
  const traces = questionId === undefined ? all : all.filter((t) => t.question_id === questionId);
  expect(traces, "one trace for the one agent session").toHaveLength(1);
  const calls = await sql.compiled.all<StepRow>(
    "SELECT tool, args, result, error FROM steps WHERE trace_id = ? AND type = 'tool_call' ORDER BY seq",
    [traces[0].id],
  );
  return { trace: traces[0], calls };
}

/**
 * The checks every harness's trace must pass: the question and its link, every call with its arguments, results
 * and errors, the tokens (cached too) of `modelCalls` calls, the final SQL, the gold tables, the exploratory and
 * empty-probe counts, the directives (oracle: the two non-gold tables, one of them described) and EX.
 * `tool` maps a stored tool name to the script's (a harness may keep its namespace).
 */
export async function expectScriptedTrace(
  sql: Sql,
  run: string,
  opts: { modelCalls: number; model: string; tool?: (stored: string) => string; cached?: false; question?: string },
) {
  const { trace, calls } = await storedTrace(sql, run, opts.question);
  expect(trace).toMatchObject({
    question_id: QUESTION_ID,
    gold_count: 2,
    final_sql: GOLD_22,
    exploratory_calls: 2, // konzert and sänger described
    empty_probe_count: 1, // SELECT * FROM konzert WHERE 0
    error_step_count: 1, // konzerte: no such table
    violation_count: 1, // sänger, named irrelevant by the directives, was described
    directive_recall: 1,
  });
  // The question's own text, linked to the dataset's question (its gold SQL), and the model the harness called.
  expect(trace.question_text).toBe("Zeige den Stadionnamen und die Anzahl der Konzerte in jedem Stadion.");
  expect(trace.dataset_name).toBe("spider-de");
  expect(trace.gold_sql).toBe(GOLD_22);
  expect(trace.run_model).toBe(opts.model);
  expect(trace).toMatchObject({
    input_tokens: opts.modelCalls * USAGE.input,
    output_tokens: opts.modelCalls * USAGE.output,
    ...(opts.cached === false ? {} : { cached_input_tokens: opts.modelCalls * USAGE.cached }),
  });
  const name = opts.tool ?? ((s: string) => s);
  expect(calls.map((c) => name(c.tool))).toEqual(TOOLS_CALLED);
  expect(JSON.parse(calls[1].args)).toEqual({ table_name: "konzert" });
  expect(JSON.parse(calls[3].args)).toEqual({ query: "SELECT count(*) FROM stadion" });
  expect(calls[0].result).toContain("konzert");
  expect(calls[1].result).toMatch(/stadion_id/);
  expect(calls[4].error, "the failing query is an error step").toBeTruthy();
  expect(calls[4].error ?? calls[4].result).toMatch(/konzerte/);
  expect(calls[5].result).toMatch(/0 rows|no rows/i);
  expect(calls.filter((c) => c.error).length).toBe(1);
  expect(JSON.parse(trace.directives as string)).toMatchObject({ irrelevant_tables: ["sänger", "sänger_im_konzert"] });
  await evaluateRun(sql, trace.run_id);
  const [ex] = await sql.compiled.all<{ ex: string }>("SELECT ex_outcome AS ex FROM traces WHERE id = ?", [trace.id]);
  expect(ex.ex).toBe("correct");
  return { trace, calls };
}

/** A running Metron (the production build, `next start`) on the store, on a free port of 127.0.0.1. */
export async function startMetron(
  store: EngineStore,
  env: Record<string, string> = {},
): Promise<{ url: string; log: () => string; stop: () => Promise<void> }> {
  const port = await new Promise<number>((resolve) => {
    const s = net.createServer().listen(0, "127.0.0.1", () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
  let log = "";
  const child = spawn(
    path.join(ROOT, "node_modules", ".bin", "next"),
    ["start", "-p", String(port), "-H", "127.0.0.1"],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        ...store.env,
        METRON_MIGRATIONS: path.join(ROOT, "drizzle"),
        METRON_OTLP_QUIET_MS: "1000",
        ...env,
      } as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  child.stdout.on("data", (d: Buffer) => (log += d));
  child.stderr.on("data", (d: Buffer) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`next start exited ${child.exitCode}:\n${log}`);
    if (i > 600) throw new Error(`Metron did not answer in 60 s (is the app built? npm run build):\n${log}`);
    const up = await fetch(`${url}/api/schema/trace`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    log: () => log,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Waits until the run named `run` has `n` traces (the receiver assembles a session once it is quiet). */
export async function waitForTraces(sql: Sql, run: string, n = 1, timeoutMs = 30_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sql.compiled.all<{ n: number }>(
      "SELECT count(*) AS n FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = ?",
      [run],
    );
    if (Number(row.n) >= n) return;
    if (Date.now() > until) {
      const stored = await sql.compiled.all(
        "SELECT r.name, t.question_id, t.step_count, t.meta FROM traces t JOIN runs r ON r.id = t.run_id",
      );
      throw new Error(`run ${run}: ${row.n} of ${n} traces after ${timeoutMs} ms; stored: ${JSON.stringify(stored)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

export interface Harness {
  store: HarnessStore;
  fake: FakeLlm;
  /** The running Metron, when asked for. */
  metron: Awaited<ReturnType<typeof startMetron>>;
}

/**
 * What a harness test runs against, made before its tests and removed after: a store with Spider-de, the fake model
 * playing SCRIPT, and (`{ metron: true }`) a running Metron on the store. Read the object inside tests and hooks.
 */
export function useHarness(opts: { metron?: boolean } = {}): Harness {
  const h = {} as Harness;
  beforeAll(async () => {
    h.store = await harnessStore();
    if (opts.metron) h.metron = await startMetron(h.store);
    h.fake = await startFakeLlm(SCRIPT, USAGE);
  }, 120_000);
  afterAll(async () => {
    await h.fake?.close();
    await h.metron?.stop();
    await h.store?.cleanup();
  });
  return h;
}

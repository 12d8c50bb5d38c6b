/**
 * The researcher's own agent harness, run over one question inside Metron's environment (issue 31). A profile says
 * how to start it non-interactively; each job gets a fresh working directory with a HOME of its own, `metron mcp` for
 * its question and variant (stdio, `--trace-out` beside it), the prompt Metron's own loop would give, and a wall time.
 * What the harness wrote (its session file, exported or found where it keeps it) is read with the importers of the
 * conformance suite and joined to the environment's trace: directives and the submission from the environment,
 * tokens, model and text from the harness.
 *
 * Profiles come only from the server's configuration — the JSON file named by `METRON_HARNESSES`, else
 * `metron.harnesses.json` in the working directory — never from a request: a browser chooses among them by name.
 */
import { spawn } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { dataDir } from "@/lib/db/client";
import { scrubSecrets } from "@/lib/config/secrets";
import { positiveNumber } from "@/lib/config/env";
import { adapt, detectFormat, looksCanonical } from "@/lib/trace/adapters";
import type { Variant } from "@/lib/environment/directives";
import { SYSTEM_PROMPT, userPrompt } from "./prompts";

import { DEFAULT_TIMEOUT_S, harnessBin, harnessInstalled, type HarnessProfile } from "./harness-profiles";

export {
  harnessBin,
  HarnessConfigError,
  harnessesFile,
  harnessInstalled,
  harnessKinds,
  harnessModel,
  harnessProfile,
  listHarnesses,
  loadHarnesses,
  type HarnessKind,
  type HarnessListing,
  type HarnessProfile,
} from "./harness-profiles";

export interface HarnessJob {
  jobId: string;
  datasetId: string;
  questionId: string;
  questionText: string;
  evidence: string | null;
  variant: Variant;
  signal: AbortSignal;
  /** The wall time, unless the profile says its own. */
  timeoutMs?: number;
}

export interface HarnessResult {
  /** A canonical trace (the ingest path's line), or null when neither the harness nor the environment left one. */
  trace: Record<string, unknown> | null;
  error: string | null;
  status: "submitted" | "no_submission" | "timeout" | "cancelled" | "error";
  usage: { input_tokens: number; output_tokens: number; cached_input_tokens: number } | null;
  version: string | null;
  /** Files read from the output folder. */
  files: string[];
}

/** `metron mcp` for the job's question and variant, as argv (the CLI of this installation). */
export function metronMcpArgv(
  job: Pick<HarnessJob, "datasetId" | "questionId" | "variant">,
  traceOut: string,
): string[] {
  const root = process.env.METRON_ROOT ?? process.cwd();
  return [
    process.execPath,
    path.join(root, "scripts", "metron.mjs"),
    "mcp",
    "--dataset",
    job.datasetId,
    "--question",
    job.questionId,
    "--variant",
    job.variant,
    "--trace-out",
    traceOut,
  ];
}

/** What `metron mcp` needs to reach this store: the store's own settings, nothing else of the server's. */
function storeEnv(): Record<string, string> {
  const out: Record<string, string> = {};
  for (const k of ["DATABASE_PATH", "DATABASE_URL", "METRON_DATA_DIR", "METRON_SQL_TIMEOUT_MS", "METRON_SQL_MAX_ROWS"])
    if (process.env[k]) out[k] = process.env[k]!;
  return out;
}

function tail(text: string, max = 2000): string {
  const t = text.trim();
  return scrubSecrets(t.length > max ? `…${t.slice(-max)}` : t);
}

/** Kills the process group whose leader's pid a file records (an orphaned harness), if it still runs. */
function killRecorded(pidFile: string): void {
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, "utf8"));
  if (!Number.isInteger(pid) || pid <= 1) return;
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    /* gone already */
  }
}

interface Spawned {
  code: number | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  cancelled: boolean;
}

/** Runs a program in its own process group (killed whole at the wall time or on cancel), stdin closed. */
function run(
  bin: string,
  args: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number; signal: AbortSignal; pidFile?: string },
): Promise<Spawned> {
  return new Promise((resolve) => {
    const child = spawn(bin, args, {
      cwd: opts.cwd,
      env: opts.env as unknown as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    if (opts.pidFile && child.pid) writeFileSync(opts.pidFile, String(child.pid));
    let stdout = "";
    let stderr = "";
    const cap = 4 * 1024 * 1024;
    child.stdout.on("data", (c: Buffer) => (stdout = (stdout + c.toString()).slice(-cap)));
    child.stderr.on("data", (c: Buffer) => (stderr = (stderr + c.toString()).slice(-cap)));
    let timedOut = false;
    let cancelled = false;
    const kill = () => {
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, opts.timeoutMs);
    const onAbort = () => {
      cancelled = true;
      kill();
    };
    opts.signal.addEventListener("abort", onAbort, { once: true });
    child.on("error", (e) => {
      stderr += `\n${e.message}`;
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      opts.signal.removeEventListener("abort", onAbort);
      resolve({ code, stdout, stderr, timedOut, cancelled });
    });
  });
}

const tomlString = (v: unknown) => JSON.stringify(v);
const tomlValue = (v: string | number | boolean) => (typeof v === "string" ? tomlString(v) : String(v));

/** Finds files under a folder whose relative path matches, newest last. */
function filesUnder(dir: string, match: (rel: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return (
    (readdirSync(dir, { recursive: true, encoding: "utf8" }) as string[])
      // Regular files only: a link the harness (or the model driving it) made is not followed out of its folder.
      .filter((f) => match(f) && lstatSync(path.join(dir, f)).isFile())
      .map((f) => path.join(dir, f))
      .sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs)
  );
}

/** The most a harness's file may hold to be read whole (`METRON_HARNESS_MAX_FILE_BYTES`, default 512 MiB). */
function maxFileBytes(): number {
  return positiveNumber("METRON_HARNESS_MAX_FILE_BYTES", 512 * 1024 ** 2);
}

/** The first trace a file holds, as a canonical line object: canonical JSONL (whole or events) or a foreign format. */
export function traceFromFile(file: string): Record<string, unknown> | null {
  const size = statSync(file).size;
  if (size > maxFileBytes())
    throw new Error(`${size} bytes, over the limit of ${maxFileBytes()} bytes (METRON_HARNESS_MAX_FILE_BYTES)`);
  const text = readFileSync(file, "utf8");
  if (!text.trim()) return null;
  if (looksCanonical(text.endsWith("\n") ? text : `${text}\n`)) {
    const lines = text
      .split(/\r?\n/)
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const whole = lines.find((l) => l.kind === undefined);
    if (whole) return whole;
    const header = lines.find((l) => l.kind === "trace");
    if (!header) return null;
    const { kind: _k, trace_id: id, ...rest } = header;
    void _k;
    const steps = lines
      .filter((l) => l.kind === "step" && l.trace_id === id)
      .sort((a, b) => Number(a.seq) - Number(b.seq))
      .map(({ kind: _s, trace_id: _t, ...s }) => (void _s, void _t, s));
    return { ...rest, steps };
  }
  const adapted = adapt(text, detectFormat(text), { fileName: path.basename(file) });
  const t = adapted.traces.find((x) => x.steps.length > 0) ?? adapted.traces[0];
  return t ? (t as unknown as Record<string, unknown>) : null;
}

/** The environment's own trace of the job (`metron mcp --trace-out`), or null when it has none it can read. */
function environmentTrace(file: string): Record<string, unknown> | null {
  try {
    return existsSync(file) ? traceFromFile(file) : null;
  } catch {
    return null;
  }
}

/** Runs one job through a harness and joins what it wrote to the environment's trace. Never throws for the harness. */
export async function runHarnessJob(name: string, profile: HarnessProfile, job: HarnessJob): Promise<HarnessResult> {
  const work = path.join(dataDir(), "harness-jobs", job.jobId);
  // A job taken over from a worker that died (SIGKILL): its harness may still run, orphaned. Its process group goes
  // before the job starts again from scratch.
  killRecorded(path.join(work, "harness.pid"));
  rmSync(work, { recursive: true, force: true });
  const home = path.join(work, "home");
  const cwd = path.join(work, "work");
  const out = path.join(work, "out");
  for (const d of [home, cwd, out]) mkdirSync(d, { recursive: true });
  const envTrace = path.join(work, "environment.jsonl");
  const mcp = metronMcpArgv(job, envTrace);
  const prompt = `${SYSTEM_PROMPT}\n\n${userPrompt(job.questionText, job.evidence)}`;
  const timeoutMs = profile.timeoutS ? profile.timeoutS * 1000 : (job.timeoutMs ?? DEFAULT_TIMEOUT_S * 1000);
  const installed = harnessInstalled(profile);
  const passed: Record<string, string> = {};
  for (const k of profile.passEnv ?? []) if (process.env[k] !== undefined) passed[k] = process.env[k]!;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: home,
    ...passed,
    ...(profile.env ?? {}),
    METRON_PROMPT: prompt,
    METRON_MCP_COMMAND: JSON.stringify(mcp),
    METRON_OUTPUT_DIR: out,
    METRON_QUESTION_ID: job.questionId,
    METRON_DATASET: job.datasetId,
    METRON_MODEL: profile.model ?? "",
    METRON_VARIANT: job.variant,
    ...storeEnv(),
  };
  const fail = (error: string, status: HarnessResult["status"] = "error"): HarnessResult => {
    const partial = environmentTrace(envTrace);
    return { trace: partial, error, status, usage: null, version: installed.version, files: [] };
  };
  if (!installed.installed)
    return fail(`the harness program ${harnessBin(profile)} is not installed (not found on PATH)`);
  const bin = installed.path!;
  const pidFile = path.join(work, "harness.pid");
  const go = (args: string[]) => run(bin, args, { cwd, env, timeoutMs, signal: job.signal, pidFile });
  let r: Spawned;
  const mcpEnv = storeEnv();
  if (profile.kind === "command") {
    r = await go(profile.command.slice(1));
  } else if (profile.kind === "opencode") {
    writeFileSync(
      path.join(cwd, "opencode.json"),
      JSON.stringify({
        $schema: "https://opencode.ai/config.json",
        ...(profile.provider ? { provider: profile.provider } : {}),
        model: profile.model,
        mcp: { metron: { type: "local", command: mcp, environment: mcpEnv, enabled: true } },
      }),
    );
    r = await go(["run", prompt]);
    if (r.code === 0 && !r.timedOut && !r.cancelled) {
      // The session, exported as OpenCode's own `export` writes it.
      const list = await go(["session", "list", "--format", "json"]);
      const sessions = list.code === 0 ? (JSON.parse(list.stdout || "[]") as { id: string }[]) : [];
      if (sessions[0]) {
        const exported = await go(["export", sessions[0].id]);
        if (exported.code === 0) writeFileSync(path.join(out, "opencode-session.json"), exported.stdout);
        else r = { ...exported, stderr: `opencode export: ${exported.stderr}` };
      }
    }
  } else if (profile.kind === "claude-code") {
    const mcpConfig = path.join(work, "mcp.json");
    writeFileSync(
      mcpConfig,
      JSON.stringify({ mcpServers: { metron: { command: mcp[0], args: mcp.slice(1), env: mcpEnv } } }),
    );
    const tools = ["list_tables", "describe_table", "get_join_info", "read_query", "submit_final_query"].map(
      (t) => `mcp__metron__${t}`,
    );
    r = await go([
      "-p",
      prompt,
      "--mcp-config",
      mcpConfig,
      "--allowedTools",
      tools.join(","),
      ...(profile.model ? ["--model", profile.model] : []),
      "--output-format",
      "stream-json",
      "--verbose",
    ]);
    // The session file, where Claude Code keeps it (its warm-up agent files beside it are not the session).
    const session = filesUnder(
      path.join(home, ".claude", "projects"),
      (f) => f.endsWith(".jsonl") && !path.basename(f).startsWith("agent-"),
    ).pop();
    if (session) writeFileSync(path.join(out, "claude-session.jsonl"), readFileSync(session));
    else if (r.stdout.trim()) writeFileSync(path.join(out, "claude-stream.jsonl"), r.stdout);
  } else {
    const providerId = profile.providerId ?? "metron";
    writeFileSync(
      path.join(home, "config.toml"),
      [
        `model = ${tomlString(profile.model)}`,
        ...(profile.provider ? [`model_provider = ${tomlString(providerId)}`] : []),
        ...(profile.provider
          ? [
              `[model_providers.${providerId}]`,
              ...Object.entries(profile.provider).map(([k, v]) => `${k} = ${tomlValue(v)}`),
            ]
          : []),
        `[mcp_servers.metron]`,
        `command = ${tomlString(mcp[0])}`,
        `args = ${tomlString(mcp.slice(1))}`,
        `env = { ${Object.entries(mcpEnv)
          .map(([k, v]) => `${k} = ${tomlString(v)}`)
          .join(", ")} }`,
        `default_tools_approval_mode = "approve"`,
        // Several jobs start their `metron mcp` at once on a busy machine: without `required` Codex 0.171 went on
        // without the tools while the server was still starting.
        `required = true`,
        `startup_timeout_sec = 120`,
        `tool_timeout_sec = 300`,
        ...(profile.features ? ["[features]", ...Object.entries(profile.features).map(([k, v]) => `${k} = ${v}`)] : []),
        ...(profile.config ?? []),
      ].join("\n"),
    );
    env.CODEX_HOME = home;
    r = await go(["exec", "--skip-git-repo-check", prompt]);
    const rollout = filesUnder(path.join(home, "sessions"), (f) => /rollout-.*\.jsonl$/.test(f)).pop();
    if (rollout) writeFileSync(path.join(out, path.basename(rollout)), readFileSync(rollout));
  }
  if (r.cancelled) return fail("cancelled", "cancelled");
  if (r.timedOut)
    return fail(
      `the harness was killed at its wall time of ${Math.round(timeoutMs / 1000)} s (timeoutS of profile "${name}")`,
      "timeout",
    );
  if (r.code !== 0)
    return fail(
      `the harness exited with ${r.code}${r.stderr.trim() ? `: ${tail(r.stderr)}` : " (no output on stderr)"}`,
    );
  const entries = readdirSync(out).map((f) => path.join(out, f));
  // Regular files only: a symbolic link in its output (to a file of the server's, say) is not read.
  const files = entries.filter((f) => lstatSync(f).isFile());
  const links = entries.filter((f) => lstatSync(f).isSymbolicLink()).map((f) => path.basename(f));
  if (!files.length)
    return fail(
      `the harness exited 0 but wrote no file in METRON_OUTPUT_DIR${links.length ? ` (symbolic links are not followed: ${links.join(", ")})` : ""}`,
    );
  let harness: Record<string, unknown> | null = null;
  const unreadable: string[] = [];
  for (const f of files) {
    try {
      harness = traceFromFile(f);
      if (harness) break;
      unreadable.push(`${path.basename(f)}: no trace in it`);
    } catch (e) {
      unreadable.push(`${path.basename(f)}: ${(e as Error).message}`);
    }
  }
  if (!harness) return fail(`no file Metron reads in METRON_OUTPUT_DIR (${unreadable.join("; ")})`);
  // Joined on one trace: the environment's directives and submission, the harness's tokens, model and text.
  const environment = environmentTrace(envTrace);
  const trace: Record<string, unknown> = { ...harness };
  if (environment?.directives) trace.directives = environment.directives;
  if (!trace.final_sql && environment?.final_sql) trace.final_sql = environment.final_sql;
  const u = harness.usage as
    { input_tokens?: number; output_tokens?: number; cached_input_tokens?: number } | undefined;
  const usage =
    u && (u.input_tokens !== undefined || u.output_tokens !== undefined)
      ? {
          input_tokens: u.input_tokens ?? 0,
          output_tokens: u.output_tokens ?? 0,
          cached_input_tokens: u.cached_input_tokens ?? 0,
        }
      : null;
  const submitted = Boolean(trace.final_sql);
  // A job that produced its trace leaves nothing behind (a harness's HOME holds caches and databases of its own);
  // a failed one keeps its folder for a look (METRON_KEEP_HARNESS_JOBS=1 keeps every one).
  if (process.env.METRON_KEEP_HARNESS_JOBS !== "1") rmSync(work, { recursive: true, force: true });
  return {
    trace,
    error: null,
    status: submitted ? "submitted" : "no_submission",
    usage,
    version: installed.version,
    files: files.map((f) => path.basename(f)),
  };
}

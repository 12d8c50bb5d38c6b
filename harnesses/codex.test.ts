/**
 * The Codex CLI (pinned in harnesses/package-lock.json; a native binary in the npm package), `codex exec` with a
 * custom model provider (the fake model's Responses API, streaming) and `metron mcp` (stdio) as its MCP server, in
 * a CODEX_HOME of its own. Its rollout file (`$CODEX_HOME/sessions/…/rollout-*.jsonl`) is ingested with
 * `metron ingest` as a user would, and the stored trace is checked against what the script did.
 *
 * What Codex 0.171 really does (seen here): it offers an MCP server's tools to the model only as a Responses
 * `namespace` tool (`mcp__metron`) and only with `features.incremental_tools` and `incremental_tools_legacy` off;
 * it wraps each output in a "Wall time: … seconds\nOutput:" block; it records each MCP call's outcome in an
 * `item_completed` `McpToolCall` item; and with tools that need approval, `codex exec` refuses every call
 * ("MCP tool call requires approval, but approval policy is never"); and it sends the first turn without an MCP
 * server's tools when the server is not ready within `mcp_optional_startup_grace_ms`.
 */
import { readdirSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeLlm } from "@/lib/testing/fake-llm";
import {
  BIN,
  expectScriptedTrace,
  metron,
  metronMcp,
  runHarness,
  SCRIPT,
  storedTrace,
  TOOLS_CALLED,
  useHarness,
  type HarnessStore,
} from "./common";

const QUESTION = "Zeige den Stadionnamen und die Anzahl der Konzerte in jedem Stadion.";

type Store = HarnessStore;

/** Runs `codex exec` on the question in a CODEX_HOME of its own; returns its rollout file. */
async function codexExec(store: Store, fake: FakeLlm, name: string, approval: "approve" | "prompt") {
  const home = path.join(store.home, name);
  mkdirSync(path.join(home, "work"), { recursive: true });
  const [node, ...args] = metronMcp({ variant: "oracle", traceOut: path.join(home, "env.jsonl") });
  const toml = (v: unknown) => JSON.stringify(v);
  writeFileSync(
    path.join(home, "config.toml"),
    [
      `model = "fake-sql"`,
      // Codex starts MCP servers in the background and sends the first turn without the tools of a server not
      // ready within a grace period: on the loaded CI machine `metron mcp` (1.3 s to answer `initialize` when
      // quiet) missed it and the model was asked with no metron tools (seen: 4 failures in 6 runs under load).
      `mcp_optional_startup_grace_ms = 30000`,
      `model_provider = "fake"`,
      `[model_providers.fake]`,
      `name = "Fake"`,
      `base_url = ${toml(fake.url)}`,
      `wire_api = "responses"`,
      `env_key = "FAKE_API_KEY"`,
      `[mcp_servers.metron]`,
      `command = ${toml(node)}`,
      `args = ${toml(args)}`,
      `env = { DATABASE_PATH = ${toml(store.env.DATABASE_PATH)} }`,
      `default_tools_approval_mode = ${toml(approval)}`,
      `[features]`,
      `incremental_tools = false`,
      `incremental_tools_legacy = false`,
    ].join("\n"),
  );
  const { stdout } = await runHarness(path.join(BIN, "codex"), ["exec", "--skip-git-repo-check", QUESTION], {
    cwd: path.join(home, "work"),
    env: { PATH: process.env.PATH, HOME: home, CODEX_HOME: home, FAKE_API_KEY: "sk-fake" },
  });
  const sessions = path.join(home, "sessions");
  const files = readdirSync(sessions, { recursive: true, encoding: "utf8" }).filter((f) =>
    /rollout-.*\.jsonl$/.test(f),
  );
  expect(files).toHaveLength(1);
  return { rollout: path.join(sessions, files[0]), stdout, home };
}

describe("the Codex CLI 0.171 with metron mcp", () => {
  const h = useHarness();

  it("its rollout, ingested without --format: every call with its result and error, tokens, duration and EX", async () => {
    const { rollout, stdout } = await codexExec(h.store, h.fake, "approve", "approve");
    expect(stdout).toContain("Done: the query is submitted.");
    const loop = h.fake.loopRequests();
    expect(loop.every((r) => r.api === "responses" && r.stream)).toBe(true);
    const report = metron(h.store, ["ingest", rollout, "--run", "codex", "--dataset", "spider-de"]);
    expect(report).toMatch(/\[codex\]: 1 inserted, 0 duplicates, 0 errors/);
    const { trace, calls } = await expectScriptedTrace(h.store.sql, "codex", {
      modelCalls: loop.length,
      model: "fake-sql",
    });
    expect(loop.length).toBe(SCRIPT.length);
    // Codex's "Wall time" header is not the tool's result; the MCP result is, and the call's duration is Codex's.
    expect(calls.every((c) => !/Wall time/.test(c.result ?? ""))).toBe(true);
    expect(calls[4].error).toBe("Error: no such table: konzerte");
    expect(trace.duration_ms).toBeGreaterThan(0);
    const durations = await h.store.sql.compiled.all<{ d: number | null }>(
      "SELECT duration_ms AS d FROM steps WHERE trace_id = ? AND type = 'tool_call'",
      [trace.id],
    );
    expect(durations.every((r) => r.d !== null)).toBe(true);
  });

  it("a run whose calls Codex refused (approval needed): every call an error, nothing submitted, not EX-correct", async () => {
    const { rollout, home } = await codexExec(h.store, h.fake, "prompt", "prompt");
    metron(h.store, ["ingest", rollout, "--run", "codex denied", "--dataset", "spider-de"]);
    const { trace, calls } = await storedTrace(h.store.sql, "codex denied");
    expect(calls.map((c) => c.tool)).toEqual(TOOLS_CALLED);
    expect(calls.every((c) => /requires approval/.test(c.error ?? ""))).toBe(true);
    expect(trace).toMatchObject({ final_sql: null, status: "no_submission", error_step_count: TOOLS_CALLED.length });
    expect(metron(h.store, ["evaluate", "--run", String(trace.run_id)])).toMatch(/correct: 0 .*no_submission: 1/);
    // No call reached Metron's environment, so its --trace-out has no trace at all.
    expect(readdirSync(home)).not.toContain("env.jsonl");
  });
});

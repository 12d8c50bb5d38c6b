/**
 * Claude Code (pinned in harnesses/package-lock.json: the current 2.1.x, a native binary in the npm package, and
 * 2.0.77, plain JavaScript on Node 20), `claude -p … --output-format stream-json` against the fake model's
 * Anthropic Messages API (streaming, `ANTHROPIC_BASE_URL`) with `metron mcp` (stdio) as its MCP server, in a HOME
 * of its own. Its session file (`$HOME/.claude/projects/<cwd>/<session>.jsonl`) is ingested without `--format`, and
 * so is its stream-json output (which does not echo the question: `--question 22` names it).
 *
 * What Claude Code really does (seen here): 2.1.332 defers MCP tools behind its ToolSearch tool unless
 * `ENABLE_TOOL_SEARCH=false`; its session file is mostly bookkeeping lines (`api-request`, `attachment`,
 * `tools-used`, `cost-state`, …); its stream-json assistant lines carry `output_tokens: 1` (the first event's
 * usage) and only the closing `result` line has the totals; 2.0.77 also writes `agent-*.jsonl` warm-up files
 * beside the session.
 */
import { mkdirSync, readdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  BIN,
  expectScriptedTrace,
  metron,
  metronMcp,
  ROOT,
  runHarness,
  SCRIPT,
  storedTrace,
  USAGE,
  useHarness,
} from "./common";

const QUESTION = "Zeige den Stadionnamen und die Anzahl der Konzerte in jedem Stadion.";
const TOOLS = ["list_tables", "describe_table", "read_query", "submit_final_query"].map((t) => `mcp__metron__${t}`);

const VERSIONS = [
  { version: "2.1.332", command: [path.join(BIN, "claude")] },
  {
    version: "2.0.77",
    command: [process.execPath, path.join(ROOT, "harnesses", "node_modules", "claude-code-2.0", "cli.js")],
  },
];

describe.each(VERSIONS)("Claude Code $version with metron mcp", ({ command }) => {
  const h = useHarness();

  it("its session file without --format, and its stream-json output: calls, errors, tokens (cached too), EX", async () => {
    const work = path.join(h.store.home, "work");
    mkdirSync(work, { recursive: true });
    const [node, ...args] = metronMcp({ variant: "oracle", traceOut: path.join(h.store.home, "env.jsonl") });
    const mcpConfig = path.join(h.store.home, "mcp.json");
    writeFileSync(
      mcpConfig,
      JSON.stringify({
        mcpServers: { metron: { command: node, args, env: { DATABASE_PATH: h.store.env.DATABASE_PATH } } },
      }),
    );
    const { stdout } = await runHarness(
      command[0],
      [
        ...command.slice(1),
        "-p",
        QUESTION,
        "--mcp-config",
        mcpConfig,
        "--allowedTools",
        TOOLS.join(","),
        "--model",
        "fake-sql",
        "--output-format",
        "stream-json",
        "--verbose",
      ],
      {
        cwd: work,
        env: {
          PATH: process.env.PATH,
          HOME: h.store.home,
          ANTHROPIC_BASE_URL: h.fake.origin,
          ANTHROPIC_API_KEY: "sk-fake",
          ENABLE_TOOL_SEARCH: "false",
          DISABLE_TELEMETRY: "1",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        },
      },
    );
    const loop = h.fake.loopRequests();
    expect(loop.every((r) => r.api === "messages" && r.stream)).toBe(true);
    expect(loop.length).toBe(SCRIPT.length);

    // The session file, found where Claude Code writes it; its warm-up agent files beside it are not the session.
    const projects = path.join(h.store.home, ".claude", "projects");
    const files = readdirSync(projects, { recursive: true, encoding: "utf8" }).filter(
      (f) => f.endsWith(".jsonl") && !path.basename(f).startsWith("agent-"),
    );
    expect(files).toHaveLength(1);
    const report = metron(h.store, [
      "ingest",
      path.join(projects, files[0]),
      "--run",
      "session",
      "--dataset",
      "spider-de",
    ]);
    expect(report).toMatch(/\[claude-code\]: 1 inserted, 0 duplicates, 0 errors/);
    const tool = (t: string) => t.replace(/^mcp__metron__/, "");
    const { trace, calls } = await expectScriptedTrace(h.store.sql, "session", {
      modelCalls: loop.length,
      model: "fake-sql",
      tool,
    });
    expect(calls[4].error).toBe("Error: no such table: konzerte");
    expect(trace.duration_ms).toBeGreaterThan(0);

    // The stream-json output: its totals from the result line (not the assistant lines' partial output tokens).
    const stream = path.join(h.store.home, "stream.jsonl");
    writeFileSync(stream, stdout);
    metron(h.store, ["ingest", stream, "--run", "stream", "--dataset", "spider-de", "--question", "22"]);
    await expectScriptedTrace(h.store.sql, "stream", { modelCalls: loop.length, model: "fake-sql", tool });
    const { trace: s } = await storedTrace(h.store.sql, "stream");
    expect(s.output_tokens).toBe(SCRIPT.length * USAGE.output);
  });
});

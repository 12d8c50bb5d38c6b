/**
 * Harness sweeps (issue 31) with the real harnesses of the suite: `metron sweep --harness NAME` runs five Spider-de
 * questions through OpenCode, Claude Code and the Codex CLI, each in a folder and HOME of its own with `metron mcp
 * --variant computed`, against the fake model; and the server's sweep API (what the browser's form posts) does the
 * same by profile name. Each question ends as one trace with directives, tokens, the model and EX.
 */
import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, ROOT, startMetron, useHarness, type Harness } from "./common";

const QUESTIONS = ["0", "1", "10", "11", "22"];

function profiles(h: Harness): string {
  const file = path.join(h.store.home, "metron.harnesses.json");
  writeFileSync(
    file,
    JSON.stringify({
      opencode: {
        kind: "opencode",
        bin: path.join(BIN, "opencode"),
        model: "fake/fake-sql",
        provider: {
          fake: {
            npm: "@ai-sdk/openai-compatible",
            name: "Fake",
            options: { baseURL: h.fake.url, apiKey: "sk-fake" },
            models: { "fake-sql": { name: "fake-sql" } },
          },
        },
        timeoutS: 90,
      },
      claude: {
        kind: "claude-code",
        bin: path.join(BIN, "claude"),
        model: "fake-sql",
        env: {
          ANTHROPIC_BASE_URL: h.fake.origin,
          ANTHROPIC_API_KEY: "sk-fake",
          ENABLE_TOOL_SEARCH: "false",
          DISABLE_TELEMETRY: "1",
          CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        },
        timeoutS: 180,
      },
      codex: {
        kind: "codex",
        bin: path.join(BIN, "codex"),
        model: "fake-sql",
        providerId: "fake",
        provider: { name: "Fake", base_url: h.fake.url, wire_api: "responses", env_key: "FAKE_API_KEY" },
        features: { incremental_tools: false, incremental_tools_legacy: false },
        env: { FAKE_API_KEY: "sk-fake" },
        timeoutS: 90,
      },
    }),
  );
  return file;
}

async function expectFiveTraces(h: Harness, runId: string, model: string) {
  const traces = await h.store.sql.compiled.all<{
    q: string;
    directives: string | null;
    input: number;
    recorded: number;
    ex: string | null;
    model: string;
    meta: string;
  }>(
    `SELECT t.question_id AS q, t.directives, t.input_tokens AS input, t.tokens_recorded AS recorded,
       t.ex_outcome AS ex, r.model, t.meta
     FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.id = ? ORDER BY t.question_id`,
    [runId],
  );
  expect(traces.map((t) => t.q).sort()).toEqual([...QUESTIONS].sort());
  for (const t of traces) {
    const steps = await h.store.sql.compiled.all<{ tool: string | null; type: string; content: string | null }>(
      "SELECT s.tool, s.type, s.content FROM steps s JOIN traces t ON t.id = s.trace_id WHERE t.run_id = ? AND t.question_id = ? ORDER BY s.seq",
      [runId, t.q],
    );
    expect(
      JSON.parse(t.directives!),
      JSON.stringify(steps.map((x) => [x.type, x.tool, x.type === "message" ? "" : (x.content ?? "").slice(0, 200)])),
    ).toMatchObject({
      strategy: "computed",
    });
    expect([t.q, Number(t.recorded), t.input > 0]).toEqual([t.q, 1, true]);
    expect(t.model).toBe(model);
    expect(t.ex).not.toBeNull();
    expect(JSON.parse(t.meta).harness.version).toBeTruthy();
  }
  // The fake model plays question 22's script: its gold SQL, correct; the others get the same query, judged.
  expect(traces.find((t) => t.q === "22")!.ex).toBe("correct");
}

/** `metron sweep --harness …` as a user runs it; asynchronous, so the fake model (in this process) keeps answering. */
async function sweepCli(h: Harness, file: string, harness: string): Promise<string> {
  const child = spawn(
    process.execPath,
    [
      path.join(ROOT, "scripts", "metron.mjs"),
      "sweep",
      "--harness",
      harness,
      "--dataset",
      "spider-de",
      "--questions",
      QUESTIONS.join(","),
      "--variant",
      "computed",
      "--concurrency",
      "5",
      "--json",
    ],
    { env: { ...process.env, ...h.store.env, METRON_HARNESSES: file }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d));
  child.stderr.on("data", (d: Buffer) => (stderr += d));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(code, `${stdout}\n${stderr}`).toBe(0);
  const status = JSON.parse(stdout) as { run_id: string; done: number; failed: number; state: string };
  expect(status, stdout).toMatchObject({ state: "done", done: 5, failed: 0 });
  return status.run_id;
}

describe("harness sweeps with the real harnesses", () => {
  const h = useHarness();

  it("metron sweep --harness opencode over five questions: five traces with directives, tokens, model and EX", async () => {
    const runId = await sweepCli(h, profiles(h), "opencode");
    await expectFiveTraces(h, runId, "opencode:fake/fake-sql");
  }, 600_000);

  it("metron sweep --harness codex over five questions: the same", async () => {
    const before = h.fake.requests.length;
    // On failure, what Codex offered the model says whether it saw Metron's tools.
    const runId = await sweepCli(h, profiles(h), "codex").catch((e) => {
      throw new Error(
        `${e}\n${JSON.stringify(h.fake.requests.slice(before).map((r) => [r.api, r.step, JSON.stringify(r.body.tools ?? null).slice(0, 300)]))}`,
      );
    });
    await expectFiveTraces(h, runId, "codex:fake-sql");
  }, 600_000);

  it("metron sweep --harness claude (Claude Code) over five questions: the same", async () => {
    const runId = await sweepCli(h, profiles(h), "claude");
    await expectFiveTraces(h, runId, "claude-code:fake-sql");
  }, 600_000);

  it("the server's sweep API (the browser's form) by profile name: the same, and the profile is listed in settings", async () => {
    const file = profiles(h);
    const server = await startMetron(h.store, { METRON_HARNESSES: file });
    try {
      const settings = await (await fetch(`${server.url}/settings`)).text();
      expect(settings).toContain("opencode");
      expect(settings).toMatch(/installed/);
      // A command in the request is no profile: refused, whatever it says.
      const refused = await fetch(`${server.url}/api/sweeps`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          dataset: "spider-de",
          selection: { kind: "ids", ids: ["0"] },
          harness: { kind: "command", command: ["touch", "/tmp/pwned"] },
          variant: "computed",
        }),
      });
      expect(refused.status).toBe(400);
      const res = await fetch(`${server.url}/api/sweeps`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          dataset: "spider-de",
          selection: { kind: "ids", ids: QUESTIONS },
          harness: "opencode",
          variant: "computed",
          concurrency: 5,
        }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      const { runId } = (await res.json()) as { runId: string };
      const until = Date.now() + 540_000;
      for (;;) {
        const s = (await (await fetch(`${server.url}/api/sweeps/${runId}`)).json()) as { state: string };
        if (s.state !== "running") break;
        if (Date.now() > until) throw new Error(`the sweep did not end:\n${server.log()}`);
        await new Promise((r) => setTimeout(r, 500));
      }
      await expectFiveTraces(h, runId, "opencode:fake/fake-sql");
    } finally {
      await server.stop();
    }
  }, 600_000);
});

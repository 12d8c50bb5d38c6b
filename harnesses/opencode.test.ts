/**
 * OpenCode (pinned in harnesses/package-lock.json; a native binary in the npm package), `opencode run` with a
 * custom OpenAI-compatible provider (the fake model's Chat Completions, streaming) and `metron mcp --variant
 * computed` (stdio) as its MCP server — the Sophrosyne setup itself — in a HOME of its own. Its session, written out
 * by `opencode export`, is ingested with `metron ingest` as a user would: one trace with the tokens, the model and
 * the directive recall.
 *
 * What OpenCode 1.18 really does (seen here): it names MCP tools `<server>_<tool>`, quotes the question it was given
 * on the command line, keeps the cache apart from `tokens.input`, and asks the model for a session title in a
 * request of its own (no tools; not part of the session's tokens).
 */
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BIN, expectScriptedTrace, metron, metronMcp, runHarness, SCRIPT, useHarness } from "./common";

const QUESTION = "Zeige den Stadionnamen und die Anzahl der Konzerte in jedem Stadion.";

describe("OpenCode 1.18 with metron mcp --variant computed", () => {
  const h = useHarness();

  it("its exported session, ingested without --format: one trace with tokens, model, every call and directive recall", async () => {
    const work = path.join(h.store.home, "work");
    mkdirSync(work, { recursive: true });
    const envTrace = path.join(h.store.home, "env.jsonl");
    writeFileSync(
      path.join(work, "opencode.json"),
      JSON.stringify({
        $schema: "https://opencode.ai/config.json",
        provider: {
          fake: {
            npm: "@ai-sdk/openai-compatible",
            name: "Fake",
            options: { baseURL: h.fake.url, apiKey: "sk-fake" },
            models: { "fake-sql": { name: "fake-sql" } },
          },
        },
        model: "fake/fake-sql",
        mcp: {
          metron: {
            type: "local",
            command: metronMcp({ variant: "computed", traceOut: envTrace }),
            environment: { DATABASE_PATH: h.store.env.DATABASE_PATH },
            enabled: true,
          },
        },
      }),
    );
    const env = { PATH: process.env.PATH, HOME: h.store.home };
    const opencode = path.join(BIN, "opencode");
    const { stdout } = await runHarness(opencode, ["run", QUESTION], { cwd: work, env });
    expect(stdout).toContain("Done: the query is submitted.");
    const sessions = JSON.parse(
      (await runHarness(opencode, ["session", "list", "--format", "json"], { cwd: work, env })).stdout,
    ) as { id: string }[];
    expect(sessions).toHaveLength(1);
    const exported = (await runHarness(opencode, ["export", sessions[0].id], { cwd: work, env })).stdout;
    const file = path.join(h.store.home, "session.json");
    writeFileSync(file, exported);

    const loop = h.fake.loopRequests();
    expect(loop.every((r) => r.api === "chat" && r.stream)).toBe(true);
    expect(loop.length).toBe(SCRIPT.length);
    expect(h.fake.requests.length).toBeGreaterThan(loop.length); // the title request, outside the session

    expect(metron(h.store, ["ingest", file, "--run", "opencode", "--dataset", "spider-de"])).toMatch(
      /\[opencode\]: 1 inserted, 0 duplicates, 0 errors/,
    );
    const { trace } = await expectScriptedTrace(h.store.sql, "opencode", {
      modelCalls: loop.length,
      model: "fake-sql",
      tool: (t) => t.replace(/^metron_/, ""),
    });
    // The directives Sophrosyne computed, read from Metron's own list_tables result in OpenCode's session.
    expect(JSON.parse(trace.directives as string)).toMatchObject({ strategy: "read from Metron's list_tables result" });
    expect(trace.duration_ms).toBeGreaterThan(0);

    // Metron's own environment trace of the same session (--trace-out): the same calls and submission.
    const envLines = readFileSync(envTrace, "utf8").trim().split("\n");
    expect(envLines.filter((l) => l.includes('"submit_final_query"')).length).toBeGreaterThan(0);
  });
});

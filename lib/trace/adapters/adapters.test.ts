import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sharedData } from "@/lib/testing/shared-data";
import { adapt, ADAPTERS, detectFormat, FORMATS, UnknownFormatError } from ".";
import { linkQuestion } from "./link-questions";
import { lastSubmittedSql } from "./types";

const real = (...p: string[]) => readFileSync(sharedData("traces", ...p), "utf8");
const jsonl = (...lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join("\n");

describe("real files from ../shared/data/traces", () => {
  it("Spider-Agent: 52 OpenAI-style messages, no call ids, object arguments, no final answer", () => {
    const text = real("spider-agent", "spider-agent-tc_claude-3-7-sonnet_sf_bq024.json");
    expect(detectFormat(text)).toBe("openai-messages");
    const { traces, warnings } = adapt(text, "openai-messages", {
      fileName: "spider-agent-tc_claude-3-7-sonnet_sf_bq024.json",
    });
    expect(warnings).toEqual([]);
    expect(traces).toHaveLength(1);
    const t = traces[0];
    expect(t.question.id).toBe("sf_bq024");
    // The question, not the 600-character prompt around it; the model from Spider-Agent's file naming.
    expect(t.question.text).toMatch(
      /^For the year 2012, which top 10 evaluation groups .* subplot acres\.\nExternal Knowledge: None$/s,
    );
    expect(t.run).toEqual({ model: "claude-3-7-sonnet" });
    expect(t.meta.model_source).toMatch(/file name/);
    expect(adapt(text, "openai-messages", { fileName: "renamed.json" }).traces[0].run).toBeUndefined(); // unknown stays unknown
    const calls = t.steps.filter((s) => s.type === "tool_call");
    expect(calls).toHaveLength(25);
    expect(calls[0]).toMatchObject({ tool: "execute_bash", args: { command: "ls USFS_FIA" } });
    expect(String(calls[0].result)).toMatch(/^EXECUTION RESULT of \[execute_bash\]:\nCONDITION.json/);
    expect(calls.every((c) => c.result !== undefined)).toBe(true); // results matched in call order
    expect(calls.filter((c) => c.tool === "terminate")).toHaveLength(0);
    expect(t.meta).toMatchObject({ source_format: "openai-messages", terminated: false });
  });

  it("LiveSQLBench: 3 tasks on alien, one passed, final SQL from submit_sql", () => {
    const text = real("livesqlbench-adk", "single_turn_samples.json");
    const texts = adapt(text, "livesqlbench").traces.map((t) => t.question.text);
    expect(texts[0]).toMatch(
      /^I want to analyze how the Signal-to-Noise Quality Indicator \(SNQI\) varies across different weather conditions\./,
    );
    expect(texts.every((q) => q && !q.startsWith("Database:"))).toBe(true);
    expect(adapt(text, "livesqlbench").traces[0].run).toBeUndefined(); // the sample records no model
    expect(detectFormat(text)).toBe("livesqlbench");
    const { traces } = adapt(text, "livesqlbench");
    expect(traces.map((t) => [t.question.id, t.question.db_id, t.outcome?.correct, t.steps.length])).toEqual([
      ["alien_1", "alien", false, 8],
      ["alien_2", "alien", true, 11],
      ["alien_3", "alien", false, 15],
    ]);
    const submit = traces[1].steps.at(-1)!;
    expect(submit.tool).toBe("submit_sql");
    expect(typeof (submit.args as { sql?: string }).sql).toBe("string");
  });

  it("Claude Code: sessions, tool_use/tool_result pairs, errors, broken lines reported", () => {
    const rep = adapt(real("claude-code", "representative_messages.jsonl"), "claude-code");
    expect(rep.traces).toHaveLength(1);
    expect(rep.traces[0].steps.filter((s) => s.type === "tool_call").map((s) => s.tool)).toEqual(["Edit", "Bash"]);
    expect(rep.traces[0].usage).toEqual({ input_tokens: 218, output_tokens: 445, cached_input_tokens: 0 });
    const edge = adapt(real("claude-code", "edge_cases.jsonl"), detectFormat(real("claude-code", "edge_cases.jsonl")));
    expect(edge.warnings.map((w) => w.line)).toEqual([10, 11, 13, 14, 15, 16]);
    const failing = edge.traces[0].steps.find((s) => s.tool === "FailingTool")!;
    expect(failing.error).toBeTruthy();
    expect(adapt(real("claude-code", "session_b.jsonl"), "claude-code").traces[0].question.text).toMatch(
      /different session file/,
    );
  });
});

describe("documented fixtures (no real public file exists for these formats)", () => {
  it("Claude Code: one API response split over lines is merged, its usage counted once (fixture after the on-disk format)", () => {
    const usage = { input_tokens: 10, cache_read_input_tokens: 90, output_tokens: 20 };
    const line = (content: unknown) => ({
      type: "assistant",
      sessionId: "s",
      uuid: Math.random().toString(),
      requestId: "req_1",
      message: { id: "msg_1", role: "assistant", model: "claude-sonnet-4-5", content: [content], usage },
    });
    const text = jsonl(
      { type: "user", sessionId: "s", uuid: "u1", message: { role: "user", content: "How many singers?" } },
      line({ type: "text", text: "Let me look." }),
      line({ type: "tool_use", id: "t1", name: "mcp__sqlite__describe_table", input: { table_name: "singer" } }),
      {
        type: "user",
        sessionId: "s",
        uuid: "u2",
        message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "id INTEGER" }] },
        toolUseResult: { stdout: "id INTEGER" },
      },
      {
        type: "assistant",
        sessionId: "s",
        uuid: "a3",
        isSidechain: true,
        requestId: "req_2",
        message: {
          id: "msg_2",
          role: "assistant",
          content: [{ type: "text", text: "sub-agent" }],
          usage: { input_tokens: 5, output_tokens: 1 },
        },
      },
    );
    const [t] = adapt(text, detectFormat(text)).traces;
    expect(t.usage).toEqual({ input_tokens: 105, output_tokens: 21, cached_input_tokens: 90 });
    expect(t.steps.map((s) => s.tool ?? s.type)).toEqual([
      "message",
      "message",
      "mcp__sqlite__describe_table",
      "message",
    ]);
    expect(t.steps[2].result).toBe("id INTEGER");
    expect(t.steps[3].meta).toEqual({ sidechain: true });
    expect(t.run?.model).toBe("claude-sonnet-4-5");
  });

  it("Codex CLI rollout: function calls by call_id, cumulative token counts turned into deltas", () => {
    const tokens = (input: number, output: number) => ({
      type: "event_msg",
      payload: {
        type: "token_count",
        info: {
          total_token_usage: {
            input_tokens: input,
            cached_input_tokens: 0,
            output_tokens: output,
            reasoning_output_tokens: 0,
          },
        },
      },
    });
    const text = jsonl(
      { type: "session_meta", payload: { id: "sess-1", timestamp: "2026-01-01T00:00:00Z" } },
      { type: "turn_context", payload: { model: "gpt-5-codex" } },
      {
        type: "response_item",
        payload: { type: "message", role: "user", content: [{ type: "input_text", text: "How many singers?" }] },
      },
      {
        type: "response_item",
        payload: {
          type: "function_call",
          name: "read_query",
          arguments: JSON.stringify({ query: "SELECT count(*) FROM singer" }),
          call_id: "c1",
        },
      },
      tokens(1000, 50),
      { type: "response_item", payload: { type: "function_call_output", call_id: "c1", output: "6" } },
      {
        type: "response_item",
        payload: {
          type: "function_call",
          name: "submit_final_query",
          arguments: JSON.stringify({ query: "SELECT count(*) FROM singer" }),
          call_id: "c2",
        },
      },
      tokens(2500, 80),
    );
    expect(detectFormat(text)).toBe("codex");
    const [t] = adapt(text, "codex").traces;
    const calls = t.steps.filter((s) => s.type === "tool_call");
    expect(calls[0]).toMatchObject({
      tool: "read_query",
      args: { query: "SELECT count(*) FROM singer" },
      result: 6,
      usage: { input_tokens: 1000, output_tokens: 50 },
    });
    expect(calls[1].usage).toMatchObject({ input_tokens: 1500, output_tokens: 30 });
    expect(t.usage).toMatchObject({ input_tokens: 2500, output_tokens: 80 });
    expect(t.run?.model).toBe("gpt-5-codex");
  });

  it("Claude Code 2.1.x: detected by structure when most of its lines are bookkeeping of new types, skipped knowingly", () => {
    // The real session file, with the line types Claude Code 2.1.x writes ahead of and between the conversation
    // (their names as 2.1.332 wrote them; their bodies here are reduced to the type and the session).
    const real2 = real("claude-code", "session_b.jsonl").trim().split("\n");
    const sessionId = (JSON.parse(real2.find((l) => l.includes("sessionId"))!) as { sessionId: string }).sessionId;
    const bookkeeping = [
      "queue-operation",
      "attachment",
      "atis-latch",
      "api-request-shape",
      "api-request-blob",
      "api-request",
      "last-prompt",
      "tools-used",
      "cost-state",
    ];
    const lines = [
      ...Array.from({ length: 19 }, (_, i) =>
        JSON.stringify({ type: bookkeeping[i % bookkeeping.length], sessionId, timestamp: "2025-06-01T00:00:00Z" }),
      ),
      ...real2,
      JSON.stringify({ type: "mystery-line", sessionId }),
    ].join("\n");
    expect(detectFormat(lines)).toBe("claude-code");
    const { traces, warnings } = adapt(lines, "claude-code");
    expect(traces).toEqual(adapt(real2.join("\n"), "claude-code").traces);
    expect(warnings.filter((w) => /bookkeeping|queue-operation|cost-state/.test(w.message))).toEqual([]);
    expect(warnings.find((w) => w.message.includes("mystery-line"))?.message).toMatch(/^1 line of type "mystery-line"/);
    // Codex and canonical lines are not taken for Claude Code.
    expect(
      detectFormat(jsonl({ type: "session_meta", payload: { id: "x" } }, { type: "event_msg", payload: {} })),
    ).toBe("codex");
  });

  // Written from codex-rs's protocol types (FunctionCallOutputPayload, McpToolCallEndEvent), not from a real rollout:
  // the harness suite of issue 29 is to replace it with one Codex wrote.
  it("Codex: refused and failed MCP calls are error steps, never the final SQL; output blocks unwrapped", () => {
    const call = (id: string, name: string, args: object) => ({
      type: "response_item",
      payload: { type: "function_call", name, arguments: JSON.stringify(args), call_id: id },
    });
    const output = (id: string, out: unknown) => ({
      type: "response_item",
      payload: { type: "function_call_output", call_id: id, output: out },
    });
    const text = jsonl(
      { type: "session_meta", payload: { id: "sess-2", timestamp: "2026-01-01T00:00:00Z" } },
      {
        type: "response_item",
        payload: { type: "message", role: "user", content: [{ type: "input_text", text: "Wie viele Konzerte?" }] },
      },
      call("c1", "metron__read_query", { query: "SELECT * FROM konzert WHERE 0" }),
      output("c1", [{ type: "input_text", text: "Wall time: 0.01 s\n(0 rows)" }]),
      {
        type: "event_msg",
        payload: {
          type: "mcp_tool_call_end",
          call_id: "c1",
          invocation: { server: "metron", tool: "read_query", arguments: {} },
          duration: { secs: 1, nanos: 500_000_000 },
          result: { Ok: { content: [{ type: "text", text: "(0 rows)" }], isError: false } },
        },
      },
      call("c2", "metron__read_query", { query: "SELECT * FROM konzerte" }),
      output("c2", { content: "no such table: konzerte", success: false }),
      call("c3", "metron__describe_table", { table_name: "stadion" }),
      output("c3", "ok"),
      {
        type: "event_msg",
        payload: {
          type: "mcp_tool_call_end",
          call_id: "c3",
          invocation: { server: "metron" },
          result: { Err: "tool call failed: timeout" },
        },
      },
      call("c4", "metron__submit_final_query", { query: "SELECT count(*) FROM konzert" }),
      output("c4", "MCP tool call requires approval; it was not run"),
    );
    const [t] = adapt(text, "codex").traces;
    const calls = t.steps.filter((s) => s.type === "tool_call");
    expect(calls[0]).toMatchObject({
      result: "Wall time: 0.01 s\n(0 rows)",
      duration_ms: 1500,
      meta: { mcp_server: "metron" },
    });
    expect(calls[0].error).toBeUndefined();
    expect(calls[1].error).toBe("no such table: konzerte");
    expect(calls[2].error).toBe("tool call failed: timeout");
    expect(calls[3].error).toMatch(/requires approval/);
    expect(lastSubmittedSql(t.steps)).toBeUndefined(); // the refused submission submitted nothing
  });

  it("OpenCode export: tool parts with state, step-finish tokens and cost, MCP names <server>_<tool>", () => {
    const text = JSON.stringify({
      info: { id: "ses_1", title: "bird 1472" },
      messages: [
        {
          info: { id: "m1", role: "user" },
          parts: [{ type: "text", text: "In 2012, who had the least consumption in LAM?" }],
        },
        {
          info: { id: "m2", role: "assistant", modelID: "gpt-5.4-mini", providerID: "openai" },
          parts: [
            {
              type: "tool",
              callID: "call_1",
              tool: "sqlite_describe_table",
              state: {
                status: "completed",
                input: { table_name: "yearmonth" },
                output: "CustomerID INTEGER",
                time: { start: 1000, end: 1250 },
              },
            },
            {
              type: "tool",
              callID: "call_2",
              tool: "sqlite_read_query",
              state: { status: "error", input: { query: "SELECT x" }, error: "no such column: x" },
            },
            {
              type: "step-finish",
              tokens: { input: 900, output: 40, reasoning: 10, cache: { read: 100, write: 0 } },
              cost: 0.0012,
            },
          ],
        },
      ],
    });
    expect(detectFormat(text)).toBe("opencode");
    const [t] = adapt(text, "opencode").traces;
    expect(t.steps[1]).toMatchObject({ tool: "sqlite_describe_table", result: "CustomerID INTEGER", duration_ms: 250 });
    expect(t.steps[2]).toMatchObject({ tool: "sqlite_read_query", error: "no such column: x" });
    expect(t.usage).toEqual({
      input_tokens: 1000,
      output_tokens: 50,
      reasoning_tokens: 10,
      cached_input_tokens: 100,
      cost_usd: 0.0012,
    });
    expect(t.run?.model).toBe("gpt-5.4-mini");
  });

  it("Anthropic messages: tool_use/tool_result by id, thinking as reasoning", () => {
    const text = JSON.stringify([
      { role: "user", content: "How many singers?" },
      {
        role: "assistant",
        content: [
          { type: "thinking", thinking: "count rows" },
          { type: "tool_use", id: "tu1", name: "read_query", input: { query: "SELECT count(*) FROM singer" } },
        ],
        usage: { input_tokens: 100, output_tokens: 10 },
      },
      { role: "user", content: [{ type: "tool_result", tool_use_id: "tu1", content: [{ type: "text", text: "6" }] }] },
    ]);
    expect(detectFormat(text)).toBe("anthropic-messages");
    const [t] = adapt(text, "anthropic-messages").traces;
    expect(t.steps.map((s) => s.type)).toEqual(["message", "reasoning", "tool_call"]);
    expect(t.steps[2]).toMatchObject({ tool: "read_query", result: "6" });
  });

  it("OpenAI messages with ids and JSON-string arguments", () => {
    const text = JSON.stringify({
      messages: [
        { role: "user", content: "How many singers?" },
        {
          role: "assistant",
          content: null,
          tool_calls: [
            { id: "a", type: "function", function: { name: "read_query", arguments: '{"query":"SELECT 1"}' } },
            { id: "b", type: "function", function: { name: "list_tables", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "b", content: "singer" },
        { role: "tool", tool_call_id: "a", content: "1" },
      ],
    });
    const [t] = adapt(text, detectFormat(text)).traces;
    expect(t.steps.filter((s) => s.type === "tool_call").map((s) => [s.tool, s.args, s.result])).toEqual([
      ["read_query", { query: "SELECT 1" }, "1"],
      ["list_tables", {}, "singer"],
    ]);
  });
});

describe("detection refuses what it does not know", () => {
  it("knows an adapter for every listed format but the canonical one", () => {
    expect(FORMATS).toEqual(["canonical", ...ADAPTERS.map((a) => a.format)]);
  });
  it("names what it looked for and the supported formats", () => {
    expect(() => detectFormat("hello world\n")).toThrow(UnknownFormatError);
    expect(() => detectFormat('{"foo": 1}')).toThrow(
      /Supported formats: canonical, openai-messages, anthropic-messages, opencode, claude-code, codex, livesqlbench/,
    );
    expect(detectFormat(jsonl({ question: { id: "1" }, steps: [] }))).toBe("canonical");
  });
  it("says a benchmark's own files (real BIRD and Spider ones) are datasets, and where they go", () => {
    const file = (...p: string[]) => readFileSync(sharedData(...p), "utf8");
    const refusal = (text: string) => {
      try {
        detectFormat(text);
      } catch (e) {
        expect(e).toBeInstanceOf(UnknownFormatError);
        return (e as Error).message;
      }
      throw new Error("detected a format");
    };
    expect(refusal(file("bird-minidev", "tables.json"))).toMatch(
      /^the file is a benchmark's tables\.json \(the schemas of 11 databases\), not traces: import it as a dataset/,
    );
    expect(refusal(file("spider-en", "tables.json"))).toMatch(
      /^the file is a benchmark's tables\.json \(the schemas of \d+ databases\)/,
    );
    const bird = refusal(file("bird-minidev", "mini_dev_sqlite.dev-split.json"));
    expect(bird).toMatch(/^the file is a benchmark's questions file \(\d+ questions with gold SQL\)/);
    expect(bird).toContain("metron dataset import");
    expect(bird).not.toContain("Looked for"); // the list of trace formats says nothing useful here
    expect(refusal(file("spider-de", "dev.json"))).toMatch(
      /^the file is a benchmark's questions file \(1,?030 questions/,
    );
    // Anything else is still refused with the formats looked for.
    expect(refusal('[{"db_id": "x"}]')).toContain("Looked for");
  });
});

describe("linkQuestion", () => {
  const questions = [
    { id: "22", text: "Wie viele Konzerte gibt es in jedem Stadion?" },
    { id: "7", text: "Wie viele Sänger gibt es?" },
  ];
  it("prefers a field, then an id given at upload, then exact, normalised and contained matches", () => {
    expect(linkQuestion("sf_bq024", "x", "9", questions)).toEqual({ id: "sf_bq024", method: "field" });
    expect(linkQuestion(undefined, "x", "9", questions)).toEqual({ id: "9", method: "given" });
    expect(linkQuestion(undefined, "Wie viele Sänger gibt es?", undefined, questions)).toMatchObject({
      id: "7",
      method: "exact",
    });
    expect(linkQuestion(undefined, "  wie viele SÄNGER gibt es ", undefined, questions)).toMatchObject({
      id: "7",
      method: "normalized",
    });
    expect(
      linkQuestion(
        undefined,
        "Question: Wie viele Konzerte gibt es in jedem Stadion?\nUse the tools.",
        undefined,
        questions,
      ),
    ).toMatchObject({ id: "22", method: "contained" });
    expect(linkQuestion(undefined, "something else", undefined, questions)).toMatchObject({
      method: "unlinked",
      id: expect.stringMatching(/^unlinked-[0-9a-f]{10}$/),
    });
  });
});

import { describe, expect, it } from "vitest";
import { sharedHandle } from "@/lib/db/sql";
import { assembleGroups, forgetAssembledSpans } from "@/lib/otel/assemble";
import { receiveSpans } from "@/lib/otel/receiver";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { adapt, detectFormat } from "./index";
import { many, one, raw, write } from "@/lib/db/typed";

// OTLP/JSON written from the GenAI semantic conventions (gen-ai-spans.md: execute_tool and inference spans, opt-in
// content attributes) and OpenInference's (openinference-semantic-conventions): no public export of a SQL agent was
// at hand.
const kv = (key: string, v: string | number | boolean) => ({
  key,
  value:
    typeof v === "string" ? { stringValue: v } : typeof v === "boolean" ? { boolValue: v } : { intValue: String(v) },
});
let clock = 1_700_000_000_000;
const span = (
  traceId: string,
  spanId: string,
  parentSpanId: string | null,
  name: string,
  attrs: Record<string, string | number | boolean>,
  extra: Record<string, unknown> = {},
) => {
  const start = (clock += 1000);
  return {
    traceId,
    spanId,
    ...(parentSpanId ? { parentSpanId } : {}),
    name,
    startTimeUnixNano: String(BigInt(start) * BigInt(1e6)),
    endTimeUnixNano: String(BigInt(start + 250) * BigInt(1e6)),
    attributes: Object.entries(attrs).map(([k, v]) => kv(k, v)),
    ...extra,
  };
};
const doc = (resource: Record<string, string>, spans: unknown[]) => ({
  resourceSpans: [
    { resource: { attributes: Object.entries(resource).map(([k, v]) => kv(k, v)) }, scopeSpans: [{ spans }] },
  ],
});

const T = "5b8efff798038103d269b633813fc60c";
const genai = doc({ "service.name": "bird-agent", "metron.run.system": "ReAct", "metron.question.id": "7" }, [
  span(T, "0000000000000001", null, "invoke_agent sql", {
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.agent.name": "sql",
  }),
  span(T, "0000000000000002", "0000000000000001", "chat gpt-5.4", {
    "gen_ai.operation.name": "chat",
    "gen_ai.request.model": "gpt-5.4",
    "gen_ai.response.model": "gpt-5.4-2026-03-01",
    "gen_ai.usage.input_tokens": 812,
    "gen_ai.usage.output_tokens": 33,
    "gen_ai.input.messages": JSON.stringify([
      { role: "system", parts: [{ type: "text", content: "You write SQL." }] },
      { role: "user", parts: [{ type: "text", content: "How many schools are in Alameda?" }] },
    ]),
    "gen_ai.output.messages": JSON.stringify([
      {
        role: "assistant",
        parts: [
          { type: "reasoning", content: "Look at schools first." },
          { type: "tool_call", id: "c1", name: "describe_table", arguments: { table_name: "schools" } },
        ],
      },
    ]),
  }),
  span(T, "0000000000000003", "0000000000000001", "execute_tool describe_table", {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "describe_table",
    "gen_ai.tool.call.id": "c1",
    "gen_ai.tool.call.arguments": JSON.stringify({ table_name: "schools" }),
    "gen_ai.tool.call.result": "CREATE TABLE schools (CDSCode text, County text)",
  }),
  // Content not opted in: the call is a step whose arguments and result are "not recorded".
  span(T, "0000000000000004", "0000000000000001", "execute_tool read_query", {
    "gen_ai.operation.name": "execute_tool",
    "gen_ai.tool.name": "read_query",
  }),
  span(
    T,
    "0000000000000005",
    "0000000000000001",
    "execute_tool submit_final_query",
    {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "submit_final_query",
      "gen_ai.tool.call.arguments": JSON.stringify({ query: "SELECT count(*) FROM schools WHERE County = 'Alameda'" }),
    },
    { status: { code: 2, message: "timeout after 30 s" } },
  ),
]);

describe("OpenTelemetry traces (OTLP/JSON)", () => {
  it("read the GenAI conventions: inference and execute_tool spans, usage, content opt-in, errors", () => {
    const text = JSON.stringify(genai);
    expect(detectFormat(text)).toBe("otlp");
    const { traces } = adapt(text, "otlp");
    expect(traces).toHaveLength(1);
    const [t] = traces;
    expect(t.run).toEqual({ name: "bird-agent", system: "ReAct", model: "gpt-5.4-2026-03-01" });
    expect(t.question).toEqual({ id: "7", text: "How many schools are in Alameda?" });
    expect(t.steps.map((s) => [s.type, s.tool ?? s.role])).toEqual([
      ["message", "user"],
      ["reasoning", undefined],
      ["message", "assistant"],
      ["tool_call", "describe_table"],
      ["tool_call", "read_query"],
      ["tool_call", "submit_final_query"],
    ]);
    expect(t.steps[2].usage).toEqual({ input_tokens: 812, output_tokens: 33 });
    expect(t.steps[3]).toMatchObject({
      args: { table_name: "schools" },
      result: "CREATE TABLE schools (CDSCode text, County text)",
      duration_ms: 250,
    });
    expect(t.steps[4].meta?.content).toMatch(/^not recorded/);
    expect(t.steps[4].result).toBeUndefined();
    expect(t.steps[5].error).toBe("timeout after 30 s");
    // The submission failed: it submitted nothing (issue 29: never a final SQL from a call that did not go through).
    expect(t.final_sql ?? null).toBeNull();
  });

  it("read OpenInference's flattened attributes, and group spans of several OTel traces by session", () => {
    const S = "sess-42";
    const oi = doc({ "service.name": "phoenix-app" }, [
      span("a".repeat(32), "00000000000000a1", null, "ChatCompletion", {
        "openinference.span.kind": "LLM",
        "session.id": S,
        "llm.model_name": "claude-sonnet-4-5",
        "llm.token_count.prompt": 500,
        "llm.token_count.completion": 12,
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.content": "List the stadiums.",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "list_tables",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": "{}",
      }),
      span("b".repeat(32), "00000000000000b1", null, "list_tables", {
        "openinference.span.kind": "TOOL",
        "session.id": S,
        "tool.name": "list_tables",
        "input.value": "{}",
        "output.value": "stadium\nsinger",
      }),
    ]);
    const { traces } = adapt(JSON.stringify(oi), "otlp");
    expect(traces).toHaveLength(1); // two OTel traces, one session
    expect(traces[0].run).toEqual({ name: "phoenix-app", model: "claude-sonnet-4-5" });
    expect(traces[0].steps.find((s) => s.type === "tool_call")).toMatchObject({
      tool: "list_tables",
      args: {},
      result: "stadium\nsinger",
    });
    expect(traces[0].steps.find((s) => s.usage)?.usage).toEqual({ input_tokens: 500, output_tokens: 12 });
    expect(traces[0].meta.otel).toMatchObject({ group: `conversation:${S}`, spans: 2 });
  });

  it("read an exporter's file output: one export per line, a bad line reported by number", () => {
    const lines = [JSON.stringify(genai), "{not json", JSON.stringify({ other: 1 })].join("\n");
    const { traces, warnings } = adapt(lines, "otlp");
    expect(traces).toHaveLength(1);
    expect(warnings.map((w) => w.line)).toEqual([2, 3]);
  });
});

describe.each(ENGINES)("the OTLP receiver (%s store)", (engine) => {
  const store = useEngineStore(engine);

  it("assembles a trace when its root arrives, re-assembles it when a late span comes, and closes rootless groups when quiet", async () => {
    const r1 = await receiveSpans(store.sql, genai, 1000);
    expect(r1).toMatchObject({ accepted: 5, duplicates: 0, rejected: 0, complete: [`trace:${T}`] });
    expect(
      await assembleGroups(store.sql, () => sharedHandle(store.sql), { groups: r1.complete, now: 1500 }),
    ).toMatchObject([{ inserted: 1, errors: [] }]);
    const stepsOf = async () =>
      await many(store.sql, raw<{ n: number }>`SELECT step_count AS n FROM traces t JOIN runs r ON r.id = t.run_id`);
    const first = await stepsOf();
    // A span that ends after its agent (an exporter that sends each span alone): kept, and the trace is stored again
    // with it, replacing the one stored without it.
    const late = doc({}, [
      span(T, "0000000000000009", "0000000000000001", "execute_tool x", { "gen_ai.tool.name": "x" }),
    ]);
    const r2 = await receiveSpans(store.sql, late, 2000);
    expect(r2).toMatchObject({ accepted: 1, rejected: 0, reopened: [`trace:${T}`], complete: [`trace:${T}`] });
    expect(
      await assembleGroups(store.sql, () => sharedHandle(store.sql), { groups: r2.complete, now: 2500 }),
    ).toMatchObject([{ inserted: 1, errors: [] }]);
    const second = await stepsOf();
    expect(second).toHaveLength(1);
    expect(second[0].n).toBe(first[0].n + 1);
    // Past METRON_OTLP_KEEP_MS the trace is final: its span bodies are let go, and a later span is refused.
    process.env.METRON_OTLP_KEEP_MS = "1000";
    try {
      // The timer's later calls look only at groups that became final within their window.
      expect(await forgetAssembledSpans(store.sql, 5000, 1000)).toBe(0);
      expect(await forgetAssembledSpans(store.sql, 5000)).toBe(6);
      const later = doc({}, [span(T, "000000000000000a", "0000000000000001", "execute_tool y", {})]);
      const r3 = await receiveSpans(store.sql, later, 5000);
      expect(r3).toMatchObject({ accepted: 0, rejected: 1 });
      expect(r3.reasons[0]).toMatch(/METRON_OTLP_KEEP_MS/);
    } finally {
      delete process.env.METRON_OTLP_KEEP_MS;
    }
    await write(store.sql, raw`DELETE FROM traces`);
    await write(store.sql, raw`DELETE FROM runs`);

    // A conversation without a root span: stored once no span has come for the quiet period.
    const conv = doc({ "metron.run.name": "quiet" }, [
      span("c".repeat(32), "00000000000000c1", "00000000000000ff", "execute_tool list_tables", {
        "gen_ai.tool.name": "list_tables",
        "gen_ai.conversation.id": "conv-1",
      }),
    ]);
    const r4 = await receiveSpans(store.sql, conv, 10_000);
    expect(r4.complete).toEqual([]);
    expect(await assembleGroups(store.sql, () => sharedHandle(store.sql), { now: 12_000 })).toEqual([]); // not quiet yet
    const closed = await assembleGroups(store.sql, () => sharedHandle(store.sql), { now: 10_000 + 60_000 });
    expect(closed).toMatchObject([{ group: "conversation:conv-1", inserted: 1 }]);
    expect(await one(store.sql, raw<Record<string, unknown>>`SELECT count(*) AS n FROM traces`)).toEqual({ n: 1 });
  });

  it("an OpenLLMetry workflow's MCP calls, in the MCP client's own OTel trace stored first, join the workflow's trace when its root comes", async () => {
    const W = "a".repeat(32);
    const M = "c".repeat(32);
    const at = (from: number, to: number) => ({
      startTimeUnixNano: String(BigInt(from) * BigInt(1e6)),
      endTimeUnixNano: String(BigInt(to) * BigInt(1e6)),
    });
    const tie = { "traceloop.workflow.name": "sql-agent", "traceloop.association.properties.metron.run.name": "oll" };
    const resource = { "service.name": "oll-agent" };
    // disableBatch: the client's session root and a call arrive (and are stored) before the workflow's root.
    const first = doc(resource, [
      span(
        M,
        "000000000000000c",
        "000000000000000b",
        "read_query.tool",
        {
          ...tie,
          "traceloop.span.kind": "tool",
          "traceloop.entity.name": "read_query",
          "traceloop.entity.input": JSON.stringify({
            tool_name: "read_query",
            arguments: { query: "SELECT 1 FROM x" },
          }),
          "traceloop.entity.output": JSON.stringify({ result: "Error: no such table: x", is_error: true }),
        },
        at(1_700_000_100_020, 1_700_000_100_030),
      ),
      span(
        M,
        "000000000000000b",
        null,
        "mcp.client.session",
        { "traceloop.span.kind": "session" },
        at(1_700_000_100_000, 1_700_000_100_300),
      ),
    ]);
    const r1 = await receiveSpans(store.sql, first, 1000);
    await assembleGroups(store.sql, () => sharedHandle(store.sql), { groups: r1.complete, now: 1000 });
    const runOll =
      "SELECT t.id, t.question_text AS q FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = 'oll'";
    expect(await many(store.sql, raw.raw(runOll))).toHaveLength(1); // the calls alone, for now
    const second = doc(resource, [
      span(
        W,
        "0000000000000002",
        "0000000000000001",
        "chat m",
        {
          ...tie,
          "gen_ai.operation.name": "chat",
          "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Wie viele?" }] }]),
        },
        at(1_700_000_100_010, 1_700_000_100_015),
      ),
      span(
        W,
        "0000000000000001",
        null,
        "sql-agent.workflow",
        { ...tie, "traceloop.span.kind": "workflow" },
        at(1_700_000_100_005, 1_700_000_100_200),
      ),
    ]);
    const r2 = await receiveSpans(store.sql, second, 2000);
    await assembleGroups(store.sql, () => sharedHandle(store.sql), { groups: r2.complete, now: 2000 });
    const traces = await many<{ id: string; q: string }>(store.sql, raw.raw(runOll));
    expect(traces).toEqual([expect.objectContaining({ q: "Wie viele?" })]); // one trace, the workflow's
    const calls = await many(
      store.sql,
      raw<{
        tool: string;
        error: string | null;
      }>`SELECT tool, error FROM steps WHERE trace_id = ${traces[0].id} AND type = 'tool_call'`,
    );
    expect(calls).toEqual([{ tool: "read_query", error: expect.stringMatching(/no such table/) }]);
  });

  it("takes the labelled question out of the prompt live, as a file of the same spans is read", async () => {
    const L = "1abe11ed".repeat(4);
    const prompt = "You are a database expert.\n\nQuestion: Wie viele Sänger gibt es?\n\nAnswer with SQL.";
    const labelled = doc({ "service.name": "labelled", "metron.run.name": "labelled" }, [
      span(L, "0000000000000001", null, "chat m", {
        "gen_ai.operation.name": "chat",
        "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: prompt }] }]),
      }),
    ]);
    const fromFile = adapt(JSON.stringify(labelled), "otlp").traces[0].question.text;
    await receiveSpans(store.sql, labelled, 1000);
    // A root-less model call's group (its process and opening messages) closes once quiet.
    const groups = (
      await many(store.sql, raw<{ g: string }>`SELECT group_key AS g FROM otlp_spans WHERE trace_id = ${L}`)
    ).map((r) => r.g);
    await assembleGroups(store.sql, () => sharedHandle(store.sql), { groups, now: 1000 + 3_600_000 });
    const [live] = await many(
      store.sql,
      raw<{
        q: string;
      }>`SELECT t.question_text AS q FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = 'labelled'`,
    );
    expect(fromFile).toBe("Wie viele Sänger gibt es?");
    expect(live.q).toBe(fromFile);
  });

  it("refuses an export of more spans than one request may carry, and stops a trace at its span limit", async () => {
    const many = (n: number, trace: string) =>
      doc(
        {},
        Array.from({ length: n }, (_, i) =>
          span(trace, (i + 1).toString(16).padStart(16, "0"), "00000000000000ff", "execute_tool t", {}),
        ),
      );
    process.env.METRON_OTLP_MAX_SPANS = "50";
    process.env.METRON_OTLP_MAX_GROUP_SPANS = "30";
    try {
      await expect(receiveSpans(store.sql, many(51, "d".repeat(32)))).rejects.toThrow(
        /51 spans, over the 50 .*METRON_OTLP_MAX_SPANS/,
      );
      expect(
        await one(
          store.sql,
          raw<Record<string, unknown>>`SELECT count(*) AS n FROM otlp_spans WHERE trace_id = ${"d".repeat(32)}`,
        ),
      ).toEqual({
        n: 0,
      });
      const r = await receiveSpans(store.sql, many(40, "e".repeat(32)));
      expect(r).toMatchObject({ accepted: 30, rejected: 10 });
      expect(r.reasons).toEqual([expect.stringMatching(/30 spans \(METRON_OTLP_MAX_GROUP_SPANS\)/)]);
    } finally {
      delete process.env.METRON_OTLP_MAX_SPANS;
      delete process.env.METRON_OTLP_MAX_GROUP_SPANS;
    }
  });
});

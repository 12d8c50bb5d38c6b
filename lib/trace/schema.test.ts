import { describe, expect, it } from "vitest";
import { makeStep, makeTraceLine } from "@/lib/testing/factories";
import { TraceAssembler } from "./assemble";
import { parseLine } from "./parse-line";
import { normalizeToolName } from "./tool-names";

function parseWhole(obj: unknown) {
  const parsed = parseLine(JSON.stringify(obj), 1);
  if (!parsed.ok) throw new Error(parsed.error);
  if (parsed.line.kind === "trace" || parsed.line.kind === "step") throw new Error("not a whole trace");
  return new TraceAssembler({}, "file").whole(parsed.line, 1).trace;
}

describe("trace schema", () => {
  it("accepts a whole trace and fills defaults", () => {
    const trace = parseWhole(makeTraceLine({ question: { id: 1472, db_id: "x" } }));
    expect(trace.question.id).toBe("1472");
    expect(trace.sample).toBe(0);
    expect(trace.steps.map((s) => s.seq)).toEqual([0, 1, 2]);
    expect(trace.usage).toEqual({ input_tokens: 100, output_tokens: 20 });
  });

  it("falls back to the last submission step's SQL for final_sql", () => {
    const trace = parseWhole(
      makeTraceLine({
        steps: [
          makeStep({ tool: "mcp__sqlite__submit_final_query", args: JSON.stringify({ query: "SELECT 1" }) }),
          makeStep({ tool: "sqlite_submit_final_query", args: { query: "SELECT 2" } }),
          makeStep({ tool: "read_query", args: { query: "SELECT 3" } }),
        ],
      }),
    );
    expect(trace.final_sql).toBe("SELECT 2");
    expect(trace.outcome).toEqual({ correct: null, status: "submitted" });
  });

  it("an explicit final_sql wins, and no submission gives status no_submission", () => {
    expect(parseWhole(makeTraceLine({ final_sql: "SELECT 9" })).final_sql).toBe("SELECT 9");
    const none = parseWhole(makeTraceLine({ steps: [makeStep()] }));
    expect(none.final_sql).toBeNull();
    expect(none.outcome.status).toBe("no_submission");
  });

  it("keeps unknown fields in meta at every level", () => {
    const trace = parseWhole({
      ...makeTraceLine({ steps: [{ ...makeStep(), latency_class: "slow" } as never] }),
      harness: "opencode",
      run: { name: "r", system: "s", model: "m", seed: 7 },
      question: { id: "q", hardness: "extra" },
    });
    expect(trace.meta).toEqual({ harness: "opencode", "run.seed": 7, "question.hardness": "extra" });
    expect(trace.steps[0].meta).toEqual({ latency_class: "slow" });
  });

  it("rejects a wrong-typed field with its path", () => {
    const bad = parseLine(
      JSON.stringify(makeTraceLine({ steps: [{ type: "tool_call", duration_ms: "fast" } as never] })),
      4,
    );
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.lineNo).toBe(4);
      expect(bad.error).toContain("steps.0.duration_ms");
    }
    const noQuestion = parseLine(JSON.stringify({ steps: [] }), 1);
    expect(!noQuestion.ok && noQuestion.error).toContain("question");
    const badType = parseLine(JSON.stringify(makeTraceLine({ steps: [{ type: "thought" } as never] })), 1);
    expect(!badType.ok && badType.error).toContain("steps.0.type");
  });

  it("run metadata given at upload fills only what the file lacks", () => {
    const line = makeTraceLine({ run: { name: "from file" } });
    const parsed = parseLine(JSON.stringify(line), 1);
    if (!parsed.ok || parsed.line.kind) throw new Error("parse");
    const trace = new TraceAssembler({ name: "cli", system: "Sophrosyne", model: "gpt-5.4" }).whole(
      parsed.line as never,
      1,
    ).trace;
    expect(trace.run).toEqual({ name: "from file", system: "Sophrosyne", model: "gpt-5.4" });
  });
});

describe("event lines", () => {
  it("assembles interleaved traces by trace_id, in seq order", () => {
    const asm = new TraceAssembler({}, "log");
    const lines = [
      { kind: "step", trace_id: "b", seq: 0, type: "tool_call", tool: "list_tables" },
      { kind: "trace", trace_id: "a", run: { name: "r", system: "s", model: "m" }, question: { id: "1" } },
      {
        kind: "step",
        trace_id: "a",
        seq: 1,
        type: "tool_call",
        tool: "submit_final_query",
        args: { query: "SELECT 1" },
      },
      { kind: "step", trace_id: "a", seq: 0, type: "tool_call", tool: "list_tables" },
      { kind: "step", trace_id: "a", seq: 0, type: "message", content: "dup" },
      { kind: "trace", trace_id: "b", run: { name: "r", system: "s", model: "m" }, question: { id: "2" } },
    ];
    const errors = lines
      .map((l, i) => {
        const p = parseLine(JSON.stringify(l), i + 1);
        if (!p.ok) throw new Error(p.error);
        return asm.event(p.line as never, i + 1);
      })
      .filter(Boolean);
    expect(errors).toEqual([{ line: 5, message: expect.stringContaining("seq 0 repeated (first on line 4)") }]);
    const { traces, errors: finishErrors } = asm.finish();
    expect(finishErrors).toEqual([]);
    const a = traces.find((t) => t.trace.question.id === "1")!.trace;
    expect(a.steps.map((s) => s.tool)).toEqual(["list_tables", "submit_final_query"]);
    expect(a.final_sql).toBe("SELECT 1");
    expect(a.meta.trace_id).toBe("a");
  });

  it("reports steps whose trace has no header", () => {
    const asm = new TraceAssembler();
    const p = parseLine(JSON.stringify({ kind: "step", trace_id: "z", seq: 0, type: "message" }), 3);
    if (!p.ok) throw new Error(p.error);
    asm.event(p.line as never, 3);
    expect(asm.finish().errors).toEqual([
      { line: 3, message: expect.stringContaining('without a {"kind":"trace"} header') },
    ]);
  });
});

describe("normalizeToolName", () => {
  it("strips MCP prefixes of Claude Code and OpenCode", () => {
    expect(normalizeToolName("mcp__sqlite__describe_table")).toBe("describe_table");
    expect(normalizeToolName("mcp__my_db__read_query")).toBe("read_query");
    expect(normalizeToolName("sqlite_describe_table")).toBe("describe_table");
    expect(normalizeToolName("describe_table")).toBe("describe_table");
    expect(normalizeToolName("bash")).toBe("bash");
  });
});

describe("JSON Schema", () => {
  it("is generated from the zod schema with the three line shapes", async () => {
    const { traceJsonSchema } = await import("./json-schema");
    const schema = traceJsonSchema() as {
      oneOf: { title: string; properties: Record<string, unknown>; required?: string[] }[];
    };
    expect(schema.oneOf.map((s) => s.title)).toEqual(["whole trace", "trace event (header)", "step event"]);
    expect(Object.keys(schema.oneOf[0].properties)).toEqual(
      expect.arrayContaining(["run", "question", "steps", "final_sql", "outcome"]),
    );
    expect(schema.oneOf[0].required).toContain("question");
    expect(schema.oneOf[2].required).toEqual(expect.arrayContaining(["kind", "trace_id", "seq", "type"]));
  });
});

import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { adapt, detectFormat } from "./index";

// Written from Harbor's ATIF RFC (no public ATIF file of a SQL agent was at hand).
const text = readFileSync(path.join(__dirname, "fixtures", "atif-sql.json"), "utf8");

describe("ATIF trajectories", () => {
  it("are detected, one trace per trajectory, with the agent as system and its model", () => {
    expect(detectFormat(text)).toBe("atif");
    expect(detectFormat(`[${text}, ${text}]`)).toBe("atif");
    const { traces, warnings } = adapt(text, "atif");
    expect(warnings).toEqual([]);
    expect(traces).toHaveLength(1);
    expect(traces[0].run).toEqual({ system: "sql-react", model: "claude-sonnet-4-5" });
    expect(traces[0].question).toEqual({ id: "0", text: "How many singers do we have?", db_id: "concert_singer" });
  });

  it("maps agent turns to reasoning and one tool call per call, results joined by id, usage counted once", () => {
    const [t] = adapt(text, "atif").traces;
    expect(t.steps.map((s) => [s.type, s.tool ?? s.role])).toEqual([
      ["message", "system"],
      ["message", "user"],
      ["reasoning", undefined],
      ["tool_call", "list_tables"],
      ["tool_call", "describe_table"],
      ["message", "tool"], // a result without a call is kept, not lost
      ["tool_call", "submit_final_query"],
    ]);
    expect(t.steps[4]).toMatchObject({
      args: { table_name: "singer" },
      result: "CREATE TABLE singer (Singer_ID int, Name text)",
      started_at: "2025-10-11T10:30:02Z",
    });
    expect(t.steps[5].usage).toEqual({ input_tokens: 1400, output_tokens: 60, cached_input_tokens: 300 });
    expect(t.steps[6].usage).toEqual({
      input_tokens: 1700,
      output_tokens: 80,
      cached_input_tokens: 500,
      reasoning_tokens: 12,
    });
    expect(t.usage).toEqual({ input_tokens: 3100, output_tokens: 140, cached_input_tokens: 800, cost_usd: 0.0114 });
    expect(t.final_sql).toBe("SELECT count(*) FROM singer");
    expect(t.outcome).toEqual({ correct: true });
  });

  it("reports an element that is not a trajectory by its position, keeping the others", () => {
    const { traces, warnings } = adapt(`[${text}, {"steps": []}]`, "atif");
    expect(traces).toHaveLength(1);
    expect(warnings).toEqual([{ line: 2, message: "not an ATIF trajectory (no schema_version ATIF-v1.x with steps)" }]);
  });
});

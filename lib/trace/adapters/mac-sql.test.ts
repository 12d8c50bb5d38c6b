import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { adapt, detectFormat } from "./index";

// Written after MAC-SQL's core/llm.py (safe_call_llm writes api_trace.json) and core/utils.py (extract_world_info):
// no public api_trace.json was at hand.
const text = readFileSync(path.join(__dirname, "fixtures", "mac-sql-api_trace.json"), "utf8");

describe("MAC-SQL api_trace.json", () => {
  it("reads one trace per question: agent stages with their tokens, the refined SQL as final, gold from ground_truth", () => {
    expect(detectFormat(text)).toBe("mac-sql");
    const { traces, warnings } = adapt(text, "mac-sql");
    expect(warnings).toEqual([]);
    expect(traces).toHaveLength(2);
    const [a, b] = traces;
    expect(a.question).toEqual({
      id: "0",
      text: "How many schools are in Alameda County?",
      db_id: "california_schools",
      gold_sql: "SELECT COUNT(*) FROM schools WHERE County = 'Alameda'",
    });
    expect(a.steps.slice(1).map((s) => [s.meta?.stage, s.usage])).toEqual([
      ["Selector", { input_tokens: 2310, output_tokens: 41 }],
      ["Decomposer", { input_tokens: 1180, output_tokens: 56 }],
    ]);
    expect(a.final_sql).toBe("SELECT COUNT(*) FROM schools WHERE County = 'Alameda'");
    // The Refiner's correction is the answer, not the Decomposer's first try.
    expect(b.final_sql).toBe("SELECT School FROM schools WHERE Charter = 1");
    expect(b.run).toEqual({ system: "MAC-SQL" });
    expect(b.steps.every((s) => s.type !== "tool_call")).toBe(true);
  });
});

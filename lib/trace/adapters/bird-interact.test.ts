import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { classifyStep } from "@/lib/sql/classify-step";
import { parseInteractAction } from "./bird-interact";
import { adapt, detectFormat } from "./index";

// Written after BIRD-Interact's batch runner (batch_run_bird_interact/main.py save_progress, SampleStatus.add_turn_log,
// ACTION_COSTS): no public run output was at hand.
const text = readFileSync(path.join(__dirname, "fixtures", "bird-interact-run.jsonl"), "utf8");

describe("BIRD-Interact agent runs", () => {
  it("parse actions with quoted arguments", () => {
    expect(parseInteractAction("get_column_meaning('signals', 'snr')")).toEqual({
      name: "get_column_meaning",
      args: ["signals", "snr"],
    });
    expect(parseInteractAction('execute("""SELECT \'a\' FROM t""")')).toEqual({
      name: "execute",
      args: ["SELECT 'a' FROM t"],
    });
    expect(parseInteractAction("get_schema()")).toEqual({ name: "get_schema", args: [] });
    expect(parseInteractAction("not an action")).toBeNull();
  });

  it("read one trace per sample: actions with their cost and budget, user-simulator turns as messages", () => {
    expect(detectFormat(text)).toBe("bird-interact");
    const { traces, warnings } = adapt(text, "bird-interact");
    expect(warnings).toEqual([]);
    expect(traces).toHaveLength(2);
    const [a, b] = traces;
    expect(a.question).toEqual({
      id: "alien_1",
      text: "Which observatories recorded the strongest signals?",
      db_id: "alien",
    });
    expect(a.steps.filter((s) => s.type !== "reasoning").map((s) => [s.type, s.tool ?? s.role])).toEqual([
      ["message", "user"],
      ["tool_call", "get_schema"],
      ["tool_call", "get_column_meaning"],
      ["message", "assistant"], // ask
      ["message", "user"], // the user simulator's reply
      ["tool_call", "execute"],
      ["tool_call", "submit"],
    ]);
    const meaning = a.steps.find((s) => s.tool === "get_column_meaning")!;
    expect(meaning).toMatchObject({
      args: { table_name: "signals", column_name: "snr" },
      result: "signal-to-noise ratio in dB",
    });
    expect(meaning.meta).toMatchObject({
      cost: 0.5,
      budget_after_action: { remaining_budget: 10.5, total_budget: 12 },
    });
    expect(a.steps.find((s) => s.role === "assistant")?.meta).toMatchObject({ action: "ask", cost: 2 });
    expect(a.outcome).toEqual({ correct: true, status: "submitted" });
    expect(a.final_sql).toMatch(/^SELECT o\.name FROM observatories/);
    // Measured: get_column_meaning explores the table it names; execute is execution.
    expect(classifyStep("get_column_meaning", meaning.args).role).toBe("schema_exploration");
    expect(classifyStep("execute", a.steps.find((s) => s.tool === "execute")!.args)).toMatchObject({
      role: "execution",
      tables: ["observatories", "signals"],
    });
    // A turn whose action did not parse is an error step; no submission, not finished.
    expect(b.steps.some((s) => s.type === "error" && /could not parse/.test(s.error ?? ""))).toBe(true);
    expect(b.outcome).toEqual({ correct: false, status: "max_steps" });
  });
});

import { describe, expect, it } from "vitest";
import { classifyStep } from "@/lib/sql/classify-step";
import { computeTraceMetrics } from "./trace-metrics";
import { costOf } from "./prices";

// Hand-checked traces over concert_singer: gold SQL reads singer and concert.
const gold = ["singer", "concert"];
const dbTables = ["singer", "concert", "stadium", "singer_in_concert"];
const call = (tool: string, args: unknown) => classifyStep(tool, args, undefined, dbTables);

describe("computeTraceMetrics (Sophrosyne definitions)", () => {
  it("counts a PRAGMA table_info read_query as exploratory; describing gold tables does not over-explore", () => {
    const m = computeTraceMetrics({
      steps: [
        call("list_tables", {}),
        call("describe_table", { table_name: "singer" }),
        call("read_query", { query: "PRAGMA table_info(concert)" }),
        call("read_query", { query: "SELECT * FROM singer LIMIT 3" }),
        null,
      ],
      goldTables: gold,
      finalTables: ["singer", "concert"],
      databaseTables: dbTables,
      irrelevantTables: null,
    });
    expect(m.exploratoryCalls).toBe(2);
    expect(m.goldCount).toBe(2);
    expect(m.overExploration).toBe(0);
    expect(m.goldNeverExplored).toEqual([]);
    expect(m.nonGoldExplored).toEqual([]);
    expect(m.extraTables).toEqual([]);
    expect(m.roleCounts).toMatchObject({ schema_listing: 1, schema_exploration: 1, data_inspection: 2 });
  });

  it("over-explores by describing non-gold tables and repeats", () => {
    const m = computeTraceMetrics({
      steps: ["singer", "stadium", "singer_in_concert", "stadium"].map((t) =>
        call("describe_table", { table_name: t }),
      ),
      goldTables: gold,
      finalTables: ["singer", "stadium"],
      databaseTables: dbTables,
      irrelevantTables: null,
    });
    expect(m.exploratoryCalls).toBe(4);
    expect(m.overExploration).toBe(2);
    expect(m.nonGoldExplored).toEqual(["stadium", "singer_in_concert"]);
    expect(m.goldNeverExplored).toEqual(["concert"]);
    expect(m.extraTables).toEqual(["stadium"]); // a failed trace with this final SQL is failed-with-extra-tables
  });

  it("computes directive recall against gold tables, the flag rate on non-gold tables, and violations", () => {
    const m = computeTraceMetrics({
      steps: [call("describe_table", { table_name: "stadium" })],
      goldTables: gold,
      finalTables: null,
      databaseTables: dbTables,
      irrelevantTables: ["concert", "stadium"],
    });
    expect(m.directiveRecall).toBe(0.5); // concert (gold) was flagged
    expect(m.directiveFlagRate).toBe(0.5); // stadium of {stadium, singer_in_concert}
    expect(m.directiveViolations).toEqual(["stadium"]);
    const none = computeTraceMetrics({
      steps: [],
      goldTables: gold,
      finalTables: null,
      databaseTables: dbTables,
      irrelevantTables: [],
    });
    expect([none.directiveRecall, none.directiveFlagRate]).toEqual([1, 0]); // flagging nothing: full recall, nothing flagged
  });

  it("leaves gold-dependent metrics unknown without gold tables", () => {
    const m = computeTraceMetrics({
      steps: [call("describe_table", { table_name: "singer" })],
      goldTables: null,
      finalTables: ["singer"],
      databaseTables: null,
      irrelevantTables: null,
    });
    expect(m).toMatchObject({
      exploratoryCalls: 1,
      goldCount: null,
      overExploration: null,
      extraTables: null,
      directiveRecall: null,
    });
  });
});

describe("costOf", () => {
  it("bills cached input at the cached rate and returns null for unknown models", () => {
    expect(costOf("gpt-4o-2024-08-06", { input: 1_000_000, cached: 400_000, output: 100_000 })).toBeCloseTo(
      0.6 * 2.5 + 0.4 * 1.25 + 0.1 * 10,
    );
    expect(costOf("gpt-4o-mini", { input: 1e6, cached: 0, output: 0 })).toBeCloseTo(0.15);
    expect(costOf("my-local-llama", { input: 1e6, cached: 0, output: 1e6 })).toBeNull();
  });
});

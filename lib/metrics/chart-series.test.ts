import { describe, expect, it } from "vitest";
import { groupedBars, niceTicks, orderSystems } from "./chart-series";
import { buildOverview } from "./overview";
import type { TraceUnit } from "./run-units";

describe("chart preparers", () => {
  it("lays out grouped bars with gaps as null, never zero", () => {
    const bars = groupedBars(
      [
        { category: "gpt-5.4", series: "Sophrosyne", value: 0.2 },
        { category: "gpt-5.4-mini", series: "No Directives", value: 0.65 },
      ],
      { series: ["No Directives", "Sophrosyne"] },
    );
    expect(bars.data).toEqual([
      { category: "gpt-5.4", "No Directives": null, Sophrosyne: 0.2 },
      { category: "gpt-5.4-mini", "No Directives": 0.65, Sophrosyne: null },
    ]);
  });
  it("orders the Sophrosyne systems as the paper does", () => {
    expect(orderSystems(["zeta", "Sophrosyne-Oracle", "No Directives", "Sophrosyne"])).toEqual([
      "No Directives",
      "Sophrosyne",
      "Sophrosyne-Oracle",
      "zeta",
    ]);
  });
  it("builds the overview matrix and figure series per dataset", () => {
    const u = (q: string, correct: number, exploratory: number, extra = 0): TraceUnit => ({
      questionId: q,
      sample: 0,
      dbId: "d",
      difficulty: null,
      correct,
      exploratory,
      goldCount: 2,
      extraTables: extra,
      inputTokens: 10,
      outputTokens: 1,
      cost: null,
    });
    const units: Record<string, TraceUnit[]> = { a: [u("1", 0, 6, 1), u("2", 1, 4)], b: [u("1", 1, 2), u("2", 1, 2)] };
    const agg = { directiveOverheadCost: null, cost: null } as never;
    const [g] = buildOverview(
      [
        {
          runs: [{ id: "a", name: "a", simulated: false }],
          system: "No Directives",
          model: "m",
          group: "bird",
          ...(agg as object),
        } as never,
        {
          runs: [{ id: "b", name: "b", simulated: false }],
          system: "Sophrosyne",
          model: "m",
          group: "bird",
          ...(agg as object),
        } as never,
      ],
      (id) => units[id],
    );
    expect(g.systems).toEqual(["No Directives", "Sophrosyne"]);
    expect(g.charts.over.data[0]).toMatchObject({ category: "m", "No Directives": 1.5, Sophrosyne: 0 });
    const err = g.charts.over.data[0]["No Directives:err"] as [number, number];
    expect(err[0]).toBeGreaterThanOrEqual(0); // [below, above] the estimate
    expect(err[1]).toBeGreaterThanOrEqual(0);
    expect(g.charts.failedWithExtra.data).toEqual([{ category: "m", "No Directives": 1, Sophrosyne: 0 }]);
    expect(g.cells.m["Sophrosyne"].stats.ex!.estimate).toBe(1);
  });
});

describe("axis ticks", () => {
  it("are round percentages, never 9/17/26/34 %", () => {
    expect(niceTicks(0, 0.34, { percent: true })).toEqual([0, 0.1, 0.2, 0.3, 0.4]);
    expect(niceTicks(0, 3.2, { percent: true })).toEqual([0, 1, 2, 3, 4]);
    expect(niceTicks(0, 1, { percent: true })).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    // Every value 0 (no over-exploration anywhere): 0 to 10 % in whole percents.
    expect(niceTicks(0, 0, { percent: true })).toEqual([0, 0.02, 0.04, 0.06, 0.08, 0.1]);
  });
  it("are whole numbers for counts, never 0.5", () => {
    expect(niceTicks(0, 2, { integer: true })).toEqual([0, 1, 2]);
    expect(niceTicks(0, 37, { integer: true })).toEqual([0, 10, 20, 30, 40]);
    expect(niceTicks(0, 0, { integer: true })).toEqual([0, 1]);
  });
  it("reach below zero when a value does (fewer exploratory calls than gold tables)", () => {
    expect(niceTicks(-0.5, 1.2, { percent: true })).toEqual([-0.5, 0, 0.5, 1, 1.5]);
  });
});

describe("bar details", () => {
  it("keep each value's interval and n for the tooltip", () => {
    const bars = groupedBars([{ category: "m", series: "S", value: 0.5, low: 0.4, high: 0.6, n: 20 }]);
    expect(bars.details).toEqual({ m: { S: { low: 0.4, high: 0.6, n: 20 } } });
  });
});

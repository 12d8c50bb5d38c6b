import { describe, expect, it } from "vitest";
import { makeTraceUnit } from "@/lib/testing/factories";
import { exOverBreakdown } from "./run-charts";
import { difficultyOrder } from "./run-units";

describe("EX and over-exploration by difficulty", () => {
  it("orders difficulty naturally (simple, moderate, challenging), then any other level alphabetically", () => {
    const units = ["challenging", "simple", "moderate", "zeta", "alpha", "simple"].map((difficulty, i) =>
      makeTraceUnit({ questionId: String(i), difficulty, goldCount: 1, exploratory: 2, correct: 1 }),
    );
    const bars = exOverBreakdown(units, (t) => t.difficulty, difficultyOrder);
    expect(bars.ex.data.map((r) => r.category)).toEqual([
      "simple (n=2)",
      "moderate (n=1)",
      "challenging (n=1)",
      "alpha (n=1)",
      "zeta (n=1)",
    ]);
    // One quantity per panel: EX and over-exploration are separate series, each with its n for the tooltip.
    expect(bars.ex.series).toEqual(["EX"]);
    expect(bars.over.series).toEqual(["over-exploration"]);
    expect(bars.over.details?.["simple (n=2)"]?.["over-exploration"]?.n).toBe(2);
    expect(["hard", "easy", "extra", "medium"].sort(difficultyOrder)).toEqual(["easy", "medium", "hard", "extra"]);
  });
});

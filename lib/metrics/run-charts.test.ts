import { describe, expect, it } from "vitest";
import { makeTraceUnit } from "@/lib/testing/factories";
import { exOverBreakdown } from "./run-charts";
import { difficultyOrder } from "./run-units";

describe("EX and over-exploration by difficulty", () => {
  it("orders difficulty naturally (simple, moderate, challenging), then any other level alphabetically", () => {
    const units = ["challenging", "simple", "moderate", "zeta", "alpha", "simple"].map((difficulty, i) =>
      makeTraceUnit({ questionId: String(i), difficulty }),
    );
    const bars = exOverBreakdown(units, (t) => t.difficulty, difficultyOrder);
    expect(bars.data.map((r) => r.category)).toEqual([
      "simple (2)",
      "moderate (1)",
      "challenging (1)",
      "alpha (1)",
      "zeta (1)",
    ]);
    expect(["hard", "easy", "extra", "medium"].sort(difficultyOrder)).toEqual(["easy", "medium", "hard", "extra"]);
  });
});

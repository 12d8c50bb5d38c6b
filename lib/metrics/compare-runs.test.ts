import { describe, expect, it } from "vitest";
import { byQuestionId, compareRuns, pairStatus } from "./compare-runs";
import type { TraceUnit } from "./run-units";

const unit = (questionId: string, correct: number | null, exploratory: number, goldCount = 2): TraceUnit => ({
  questionId,
  sample: 0,
  dbId: "db",
  difficulty: "simple",
  correct,
  exploratory,
  goldCount,
  extraTables: 0,
  inputTokens: 100 * exploratory,
  outputTokens: 10,
  cost: null,
});

describe("compareRuns", () => {
  const baseline = [unit("1", 0, 6), unit("2", 1, 4), unit("3", 1, 2), unit("4", 0, 5), unit("only-base", 1, 1)];
  const other = [unit("1", 1, 2), unit("2", 0, 3), unit("3", 1, 2), unit("4", 0, 2), unit("only-other", 0, 9)];
  const c = compareRuns([baseline, other]);

  it("lists questions in the run page's order: integer ids by value, then the others by text (issue 30)", () => {
    const ids = ["10", "2", "b", "0", "19", "1", "a", "20", "-1"];
    const runs = [ids.map((id) => unit(id, 1, 1)), [...ids].reverse().map((id) => unit(id, 0, 1))];
    expect(compareRuns(runs).rows.map((r) => r.questionId)).toEqual(["-1", "0", "1", "2", "10", "19", "20", "a", "b"]);
    expect(
      [
        { questionId: "3", sample: 1 },
        { questionId: "3", sample: 0 },
      ].sort(byQuestionId),
    ).toEqual([
      { questionId: "3", sample: 0 },
      { questionId: "3", sample: 1 },
    ]);
  });

  it("aligns on the intersection and counts what was left out", () => {
    expect(c.aligned).toBe(4);
    expect(c.leftOut).toEqual([1, 1]);
    expect(c.rows.map((r) => r.status[1])).toEqual(["fixed", "regressed", "both_right", "both_wrong"]);
    expect(c.rows[0].exploratoryDelta).toEqual([null, -4]);
    expect(c.rows[0].tokenDelta).toEqual([null, -400]);
  });

  it("gives no token delta where a trace recorded no usage (unknown, not 0)", () => {
    const unrecorded = other.map((u) => ({ ...u, tokensRecorded: 0 }));
    expect(compareRuns([baseline, unrecorded]).rows.map((r) => r.tokenDelta[1])).toEqual([null, null, null, null]);
  });

  it("counts fixes and regressions with McNemar's p and the over-exploration difference", () => {
    const v = c.versus[1]!;
    expect(v).toMatchObject({ fixed: 1, regressed: 1, bothRight: 1, bothWrong: 1, mcnemarP: 1 });
    // Baseline (6+4+2+5 − 8) / 8 = 112.5%; other (2+3+2+2 − 8) / 8 = 12.5%: difference −100 points.
    expect(v.overDifference!.estimate).toBeCloseTo(-1.0);
    expect(v.overDifference!.low).toBeLessThanOrEqual(-1.0);
    expect(v.overDifference!.high).toBeGreaterThanOrEqual(-1.0);
    expect(c.versus[0]).toBeNull();
  });

  it("treats unknown outcomes as unknown, not as failures", () => {
    expect(pairStatus(null, 1)).toBe("unknown");
    expect(pairStatus(1, null)).toBe("unknown");
  });
});

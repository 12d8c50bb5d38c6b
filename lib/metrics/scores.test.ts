import { describe, expect, it } from "vitest";
import { compareScores, differenceText, pairedScoresTable, scoresView, summarizeScore, type ScoreUnit } from "./scores";
import { bootstrap, mcnemarExact } from "./stats";

const u = (q: string, value: number | null, sample = 0, category: string | null = null): ScoreUnit => ({
  questionId: q,
  sample,
  value,
  category,
});

describe("custom scores, counted as EX is", () => {
  it("give a numeric score's mean over the traces scored, with an interval that resamples questions", () => {
    const units = [u("1", 0.2), u("1", 0.4, 1), u("2", 1), u("3", null), u("4", 0.6)];
    const s = summarizeScore("faithfulness", "numeric", units);
    expect(s.n).toBe(4); // the unscored trace is left out, not counted as 0
    expect(s.mean!.estimate).toBeCloseTo((0.2 + 0.4 + 1 + 0.6) / 4);
    // the same bootstrap as EX's: questions resampled with their traces
    const expected = bootstrap([[0.2, 0.4], [1], [0.6]], (g) => g.flat().reduce((a, b) => a + b, 0) / g.flat().length);
    expect(s.mean).toEqual(expected);
    expect(s.mean!.low).toBeLessThan(s.mean!.estimate);
    expect(s.mean!.high).toBeGreaterThan(s.mean!.estimate);
  });

  it("give a categorical score's share of each category, most frequent first", () => {
    const units = [u("1", null, 0, "good"), u("2", null, 0, "bad"), u("3", null, 0, "good"), u("4", null, 0, null)];
    expect(summarizeScore("verdict", "categorical", units)).toEqual({
      name: "verdict",
      kind: "categorical",
      n: 3,
      mean: null,
      shares: [
        { category: "good", n: 2, share: 2 / 3 },
        { category: "bad", n: 1, share: 1 / 3 },
      ],
    });
  });

  it("compare booleans pair by pair with McNemar's exact test, and numbers by their mean paired difference", () => {
    const base = [u("1", 1), u("2", 1), u("3", 0), u("4", 0), u("5", 1), u("6", 0)];
    const other = [u("1", 0), u("2", 1), u("3", 1), u("4", 1), u("5", 1), u("6", 1), u("7", 1)];
    const b = compareScores("judge_ok", "boolean", base, other);
    expect(b.pairs).toBe(6); // question 7 has no baseline: not a pair
    expect(b.mcnemar).toEqual({ b: 1, c: 3, p: mcnemarExact(1, 3) });
    expect(b.difference!.estimate).toBeCloseTo((-1 + 0 + 1 + 1 + 0 + 1) / 6);
    const n = compareScores("len", "numeric", [u("1", 10), u("2", 20)], [u("1", 12), u("2", 26)]);
    expect(n.mcnemar).toBeNull();
    expect(n.difference!.estimate).toBeCloseTo(4);
    expect(n.difference!.low).toBeGreaterThanOrEqual(2);
    expect(n.difference!.high).toBeLessThanOrEqual(6);
  });
});

describe("scores for a paper and a chart", () => {
  const judge = summarizeScore("judge_ok", "boolean", [u("1", 1), u("2", 0), u("3", 1), u("4", 1)]);
  const verdict = summarizeScore("verdict", "categorical", [u("1", null, 0, "ok"), u("2", null, 0, "bad")]);
  const quality = summarizeScore("quality", "numeric", [u("1", 0.25), u("2", 0.5)]);

  it("write each run's mean and interval, a boolean as a percentage, a missing score as --, simulated rows marked", () => {
    const v = scoresView(
      [
        { name: "A", simulated: false, system: "No Directives", scores: [judge, verdict] },
        { name: "B", simulated: true, system: "Sophrosyne", scores: [quality] },
      ],
      { caption: "Scores.", label: "tab:s" },
    );
    const latex = v.latex.split("\n");
    expect(latex).toContain("Run & judge\\_ok (\\%) & quality & verdict & Scored traces \\\\");
    const [a, b] = latex.filter((l) => /^(A|B) /.test(l));
    expect(a).toContain(
      `& 75.0 {\\scriptsize [${(judge.mean!.low * 100).toFixed(1)}, ${(judge.mean!.high * 100).toFixed(1)}]}`,
    );
    expect(a).toContain("& -- &"); // A has no quality score: not 0
    expect(a).toContain("bad (50.0 \\%)");
    expect(b).toMatch(/^B \(simulated\) & -- & 0\.38/);
    expect(v.latex).toContain("SIMULATED");
    expect(v.rows.map((r) => r.name)).toEqual(["A", "B (simulated)"]);
    // charts: one per kind, a bar per run in its system's colour, nothing drawn for a run without the score
    expect(v.charts.boolean.data).toEqual([
      {
        category: "judge_ok",
        A: 0.75,
        "A:err": [0.75 - judge.mean!.low, judge.mean!.high - 0.75],
        "B (simulated)": null,
      },
    ]);
    expect(v.charts.numeric.info).toEqual({
      A: { system: "No Directives" },
      "B (simulated)": { system: "Sophrosyne" },
    });
  });

  it("write no interval for a score over a single question: not in the table, the chart, the caption or the text", () => {
    const once = summarizeScore("judge_ok", "boolean", [u("7", 1), u("7", 1, 1)]);
    expect(once.mean).toMatchObject({ estimate: 1, low: 1, high: 1, units: 1 });
    const v = scoresView([{ name: "A", simulated: false, system: "Sophrosyne", scores: [once, quality] }], {
      caption: "Scores.",
      label: "tab:s",
    });
    const row = v.latex.split("\n").find((l) => l.startsWith("A "))!;
    expect(row).toMatch(/^A & 100\.0 & 0\.38 \{\\scriptsize \[/); // the two-question score keeps its interval
    expect(v.latex).toContain("(none where a single question carries a score or every question has the same value)");
    expect(v.charts.boolean.data[0]).not.toHaveProperty("A:err");
    expect(v.charts.numeric.data[0]).toHaveProperty("A:err");
    // The tooltip says why the bar has no error bar; the bar with one has no such note.
    expect(v.charts.boolean.details?.judge_ok?.A).toEqual({
      low: null,
      high: null,
      n: 2,
      note: "from one question: no interval",
    });
    expect(v.charts.numeric.details?.quality?.A?.note).toBeUndefined();
    const d = compareScores("judge_ok", "boolean", [u("1", 0)], [u("1", 1)]);
    expect(differenceText("boolean", d.difference)).toBe("+100.0 pp (from one question: no interval)");
  });

  it("write paired differences: a boolean's in percentage points with McNemar's p, no test for a category", () => {
    const base = [u("1", 1), u("2", 0), u("3", 0)];
    const other = [u("1", 1), u("2", 1), u("3", 1)];
    const t = pairedScoresTable(
      [
        { name: "A", simulated: false },
        { name: "B", simulated: false },
      ],
      0,
      [
        { name: "judge_ok", kind: "boolean", versus: [null, compareScores("judge_ok", "boolean", base, other)] },
        { name: "verdict", kind: "categorical", versus: [null, compareScores("verdict", "categorical", [], [])] },
      ],
    );
    expect(t.rows).toHaveLength(1);
    expect(t.rows[0][3]).toMatch(/^\+66\.7 pp \[/);
    expect(t.rows[0][4]).toEqual({ value: mcnemarExact(0, 2) });
  });
});

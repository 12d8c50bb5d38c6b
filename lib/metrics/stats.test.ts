import { describe, expect, it } from "vitest";
import { makeTraceUnit } from "@/lib/testing/factories";
import {
  barBoundsOf,
  bootstrap,
  bootstrapInParts,
  boundsOf,
  hasInterval,
  linkingCounts,
  majorityAtK,
  mcnemarExact,
  noInterval,
  overExploration,
  passAtK,
  runParts,
  schemaLinking,
} from "./stats";

const share = (values: boolean[]) => (values.length ? values.filter(Boolean).length / values.length : null);

describe("over-exploration of a set (hand-checked)", () => {
  it("is (Σ exploratory − Σ gold) / Σ gold, not a mean of per-trace ratios", () => {
    // 3+1+8 exploratory against 2+1+2 gold: (12 − 5) / 5 = 140%; the mean of ratios would be 100%.
    expect(
      overExploration([
        { exploratory: 3, gold: 2 },
        { exploratory: 1, gold: 1 },
        { exploratory: 8, gold: 2 },
      ]),
    ).toBeCloseTo(1.4);
    expect(overExploration([{ exploratory: 2, gold: 0 }])).toBeNull();
  });
});

describe("mcnemarExact", () => {
  it("matches the exact binomial p-values", () => {
    // b = 1, c = 9: 2 · (1 + 10) / 1024 = 0.021484375
    expect(mcnemarExact(1, 9)).toBeCloseTo(0.021484375, 12);
    // b = 2, c = 8: 2 · (1 + 10 + 45) / 1024 = 0.109375
    expect(mcnemarExact(8, 2)).toBeCloseTo(0.109375, 12);
    // b = 0, c = 5: 2 / 32
    expect(mcnemarExact(0, 5)).toBeCloseTo(0.0625, 12);
    expect(mcnemarExact(5, 5)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
    // b = 10, c = 25 (n = 35): 2·P(X ≤ 10) = 0.01668…
    expect(mcnemarExact(10, 25)).toBeCloseTo(0.016674, 5);
  });
});

describe("bootstrap", () => {
  it("is reproducible with a seed and brackets the estimate", () => {
    const outcomes = Array.from({ length: 100 }, (_, i) => i % 10 < 6); // 60% correct
    const a = bootstrap(outcomes, share, { seed: 42 })!;
    const b = bootstrap(outcomes, share, { seed: 42 })!;
    expect(a).toEqual(b);
    expect(a.estimate).toBeCloseTo(0.6);
    expect(a.low).toBeLessThan(0.6);
    expect(a.high).toBeGreaterThan(0.6);
    // The normal approximation gives ±1.96·√(.6·.4/100) ≈ ±0.096.
    expect(a.high - a.low).toBeGreaterThan(0.15);
    expect(a.high - a.low).toBeLessThan(0.23);
    expect(bootstrap(outcomes, share, { seed: 7 })).not.toEqual(a);
    expect(bootstrap([], share)).toBeNull();
  });

  it("in parts, pauses every 50 resamples and gives the interval the resamples drawn at once gave (pinned)", () => {
    const outcomes = Array.from({ length: 100 }, (_, i) => i % 10 < 6);
    // The bounds the bootstrap gave before it was cut into parts (2026-12-07), seed 42: the same resamples, in order.
    expect(bootstrap(outcomes, share, { seed: 42 })).toEqual({ estimate: 0.6, low: 0.51, high: 0.69, units: 100 });
    for (const [iterations, pauses, bounds] of [
      [1000, 20, { low: 0.51, high: 0.69 }],
      [130, 3, { low: 0.5, high: 0.7 }], // a last part of 30
    ] as const) {
      const parts = bootstrapInParts(outcomes, share, { seed: 42, iterations });
      let paused = 0;
      let step = parts.next();
      for (; !step.done; step = parts.next()) paused++;
      expect(paused).toBe(pauses);
      expect(step.value).toEqual({ estimate: 0.6, ...bounds, units: 100 });
      expect(runParts(bootstrapInParts(outcomes, share, { seed: 42, iterations }))).toEqual(step.value);
    }
  });

  it("has no interval over a single question: every resample draws it, so the bounds only repeat the estimate", () => {
    const one = bootstrap([true], share)!;
    expect(one).toEqual({ estimate: 1, low: 1, high: 1, units: 1 });
    expect(hasInterval(one)).toBe(false);
    expect(boundsOf(one)).toEqual({ low: null, high: null });
    const two = bootstrap([true, false], share)!;
    expect(two.units).toBe(2);
    expect(hasInterval(two)).toBe(true);
    expect(boundsOf(two)).toEqual({ low: 0, high: 1 });
    expect(boundsOf(null)).toEqual({ low: null, high: null });
    expect(noInterval(one)).toBe("from one question: no interval");
  });

  it("has no interval where every question has the same value: every resample has it, so the bounds repeat it too", () => {
    const alike = bootstrap([true, true, true], share)!;
    expect(alike).toEqual({ estimate: 1, low: 1, high: 1, units: 3 });
    expect(hasInterval(alike)).toBe(false);
    expect(noInterval(alike)).toBe("every question alike: no interval");
    expect(boundsOf(alike)).toEqual({ low: null, high: null });
    expect(barBoundsOf(alike)).toEqual({ low: null, high: null, note: "every question alike: no interval" });
    // The same sum in another order differs in its last bit: no spread.
    const [a, b] = [0.1 + (0.2 + 0.3), 0.1 + 0.2 + 0.3];
    expect(a).not.toBe(b);
    expect(hasInterval({ estimate: 0.6, low: Math.min(a, b), high: Math.max(a, b), units: 3 })).toBe(false);
    expect(hasInterval({ estimate: 0.6, low: 0.6, high: 0.601, units: 3 })).toBe(true);
    const differ = bootstrap([true, true, false], share)!;
    expect(hasInterval(differ)).toBe(true);
    expect(barBoundsOf(differ)).toEqual({ low: differ.low, high: 1, note: null });
  });
});

describe("Pass@k and Majority@K", () => {
  it("computes the unbiased pass@k", () => {
    expect(passAtK(5, 0, 1)).toBe(0);
    expect(passAtK(5, 2, 1)).toBeCloseTo(0.4);
    expect(passAtK(5, 2, 5)).toBe(1);
    expect(passAtK(4, 1, 2)).toBeCloseTo(0.5); // 1 − C(3,2)/C(4,2) = 1 − 3/6
  });
  it("votes on equal execution results, with ties scored as a random tie-break", () => {
    const s = (correct: boolean, resultKey: string | null) => ({ correct, resultKey });
    expect(majorityAtK([s(true, "a"), s(true, "a"), s(false, "b")])).toBe(1);
    expect(majorityAtK([s(false, "b"), s(false, "b"), s(true, "a")])).toBe(0);
    expect(majorityAtK([s(true, "a"), s(false, "b")])).toBe(0.5); // a tie
    expect(majorityAtK([s(true, "a"), s(false, "b"), s(false, "c")])).toBeCloseTo(1 / 3);
    expect(majorityAtK([s(false, null), s(true, "a")])).toBe(1); // errors do not vote
    expect(majorityAtK([s(false, null)])).toBe(0);
  });
});

describe("schema linking", () => {
  it("micro-averages precision, recall and F1 over traces", () => {
    const counts = [
      linkingCounts(["singer", "concert"], ["singer"]),
      linkingCounts(["Stadium"], ["stadium", "concert"]),
    ];
    expect(counts).toEqual([
      { truePositive: 1, predicted: 2, gold: 1 },
      { truePositive: 1, predicted: 1, gold: 2 },
    ]);
    const r = schemaLinking(counts);
    expect(r.precision).toBeCloseTo(2 / 3);
    expect(r.recall).toBeCloseTo(2 / 3);
    expect(r.f1).toBeCloseTo(2 / 3);
    expect(schemaLinking([])).toEqual({ precision: null, recall: null, f1: null });
  });
});

describe("sampleStats over a multi-sample run", () => {
  it("computes Pass@1, Pass@K and Majority@K with ties", async () => {
    const { sampleStats } = await import("./run-units");
    const t = (questionId: string, sample: number, correct: number, resultKey: string) =>
      makeTraceUnit({ questionId, sample, correct, resultKey });
    const s = sampleStats([
      t("a", 0, 1, "x"),
      t("a", 1, 1, "x"),
      t("a", 2, 0, "y"), // majority right
      t("b", 0, 0, "y"),
      t("b", 1, 1, "x"),
      t("b", 2, 0, "z"), // three-way tie: 1/3
      t("c", 0, 0, "y"),
      t("c", 1, 0, "y"),
      t("c", 2, 0, "z"), // all wrong
    ])!;
    expect(s.k).toBe(3);
    expect(s.pass1).toBeCloseTo((2 / 3 + 1 / 3 + 0) / 3);
    expect(s.passK).toBeCloseTo(2 / 3);
    expect(s.majorityK).toBeCloseTo((1 + 1 / 3 + 0) / 3);
  });

  it("Majority@K votes with the first K samples: K = 1 is the first sample's outcome (issue 30: ?k= was ignored)", async () => {
    const { sampleStats } = await import("./run-units");
    const t = (sample: number, correct: number, resultKey: string) =>
      makeTraceUnit({ questionId: "a", sample, correct, resultKey });
    // Listed out of order: the vote goes by sample number.
    const traces = [t(2, 1, "ok"), t(0, 0, "bad"), t(1, 1, "ok")];
    expect(sampleStats(traces, 3)!.majorityK).toBe(1); // two of three agree on the right result
    expect(sampleStats(traces, 1)!.majorityK).toBe(0); // sample 0 alone is wrong
    expect(sampleStats(traces, 2)!.majorityK).toBeCloseTo(0.5); // a tie of one wrong and one right
  });

  it("Majority@K scores a question none of whose samples executed as 0, in the denominator", async () => {
    const { sampleStats } = await import("./run-units");
    const t = (questionId: string, correct: number, resultKey: string | null) =>
      makeTraceUnit({ questionId, correct, resultKey });
    // 20 questions × 3 samples: 13 majority-right, 2 majority-wrong, 5 where no sample executed (pred errors).
    const traces = [];
    for (let q = 0; q < 13; q++) traces.push(t(`r${q}`, 1, "ok"), t(`r${q}`, 1, "ok"), t(`r${q}`, 0, "bad"));
    for (let q = 0; q < 2; q++) traces.push(t(`w${q}`, 0, "bad"), t(`w${q}`, 0, "bad"), t(`w${q}`, 1, "ok"));
    for (let q = 0; q < 5; q++) traces.push(t(`e${q}`, 0, null), t(`e${q}`, 0, null), t(`e${q}`, 0, null));
    const s = sampleStats(traces)!;
    expect(s.questions).toBe(20);
    expect(s.majorityK).toBeCloseTo(13 / 20); // dropping the 5 would give 13 / 15
  });

  it("Pass@K uses the unbiased estimator when a question has more samples than K", async () => {
    const { sampleStats } = await import("./run-units");
    const t = (questionId: string, correct: number) => makeTraceUnit({ questionId, correct });
    // 5 samples, 1 correct: pass@2 = 1 − C(4,2)/C(5,2) = 1 − 6/10 = 0.4; pass@5 = 1.
    const traces = [t("a", 1), t("a", 0), t("a", 0), t("a", 0), t("a", 0)];
    expect(sampleStats(traces, 2)!.passK).toBeCloseTo(0.4);
    expect(sampleStats(traces)!.passK).toBe(1);
    expect(sampleStats(traces)!.majorityK).toBeNull(); // not evaluated: no vote
  });
});

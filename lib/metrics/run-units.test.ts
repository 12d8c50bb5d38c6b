import { describe, expect, it } from "vitest";
import { makeTraceUnit } from "@/lib/testing/factories";
import {
  groupByQuestion,
  meanAccuracy,
  runStats,
  runStatsInParts,
  summarizeQuestion,
  summaryExploration,
  type TraceUnit,
} from "./run-units";
import { bootstrap, seededRandom } from "./stats";

/** `runStats` as it was written before it was cut into parts (2026-12-07): filters and sums over the whole array. */
function reference(traces: TraceUnit[], seed = 1) {
  const units = groupByQuestion(traces).map(summarizeQuestion);
  const priced = traces.filter((t) => t.cost !== null);
  const recorded = traces.filter((t) => t.tokensRecorded === undefined || Boolean(t.tokensRecorded));
  return {
    questions: units.length,
    ex: bootstrap(units, meanAccuracy, { seed, carries: (q) => q.accuracy !== null }),
    over: bootstrap(units, summaryExploration, { seed, carries: (q) => q.gold > 0 || q.exploratory > 0 }),
    failedWithExtra: traces.some((t) => t.extraTables !== null)
      ? traces.filter((t) => t.correct === 0 && (t.extraTables ?? 0) > 0).length
      : null,
    inputTokens: recorded.length ? recorded.reduce((s, t) => s + t.inputTokens, 0) : null,
    outputTokens: recorded.length ? recorded.reduce((s, t) => s + t.outputTokens, 0) : null,
    tokensRecorded: recorded.length,
    cost: priced.length ? priced.reduce((s, t) => s + (t.cost as number), 0) : null,
  };
}

/** `n` traces over 1,000 questions with every field's unknowns mixed in (seeded: the same every run). */
function traces(n: number, known = true): TraceUnit[] {
  const random = seededRandom(7);
  return Array.from({ length: n }, (_, i) => {
    const r = random();
    return makeTraceUnit({
      questionId: String(i % 1000),
      sample: Math.floor(i / 1000),
      correct: r < 0.1 ? null : r < 0.55 ? 1 : 0,
      exploratory: Math.floor(random() * 6),
      goldCount: known && random() < 0.9 ? 1 + Math.floor(random() * 3) : null,
      extraTables: known && random() < 0.8 ? Math.floor(random() * 3) : null,
      inputTokens: Math.floor(random() * 5000),
      outputTokens: Math.floor(random() * 500),
      tokensRecorded: random() < 0.85 ? 1 : 0,
      cost: known && random() < 0.7 ? random() / 100 : null,
    });
  });
}

describe("a run's figures, computed in parts", () => {
  it("equal the figures computed over the whole array at once, to the last bit, across the parts' bounds", () => {
    for (const list of [traces(25_003), traces(9_999), traces(1), [], traces(12_000, false)]) {
      const expected = reference(list);
      expect(runStats(list)).toEqual(expected);
      expect(runStats(list, 5)).toEqual(reference(list, 5));
      // Costs summed in the same order give the same float, not one close to it.
      if (expected.cost !== null) expect(runStats(list).cost).toBe(expected.cost);
    }
    const unknown = runStats(traces(12_000, false));
    expect(unknown.cost).toBeNull();
    expect(unknown.failedWithExtra).toBeNull();
    expect(unknown.over).toBeNull();
  });

  it("pause after every 10,000 traces, once grouped, and every 50 resamples of each bootstrap", () => {
    const parts = runStatsInParts(traces(25_003));
    let paused = 0;
    let step = parts.next();
    for (; !step.done; step = parts.next()) paused++;
    expect(paused).toBe(3 + 1 + 20 + 20);
    expect(step.value).toEqual(reference(traces(25_003)));
  });
});

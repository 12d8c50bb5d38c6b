/**
 * Statistics for comparing runs (pure): a seeded bootstrap over questions, McNemar's exact test on paired
 * outcomes, Pass@k / Majority@K over samples, and table-level schema linking (FlexSQL).
 */

/** A small seeded PRNG (mulberry32), so intervals are reproducible. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Interval {
  estimate: number;
  low: number;
  high: number;
  /**
   * How many units (questions) the statistic draws on: those resampled that carry it (for EX, the questions with a
   * judged sample; for over-exploration, those with gold tables). Resamples of the others change nothing.
   */
  units: number;
}

/**
 * Whether an interval says anything. When a single question carries the statistic, every resample that has a value
 * has that question's; when every question has the same value (a share true of 3 out of 3), every resample has it
 * too. Either way the bounds equal the estimate and would read as certainty, so no interval is shown or exported
 * (docs/metrics.md).
 */
export function hasInterval(i: Interval): boolean {
  // A spread of rounding error (means of the same shares summed in another order) is no spread.
  return i.units >= 2 && i.high - i.low > 1e-9 * Math.max(1, Math.abs(i.estimate));
}

/** What stands in place of the interval where there is none (`hasInterval`), and why. */
export function noInterval(i: Interval): string {
  return i.units < 2 ? "from one question: no interval" : "every question alike: no interval";
}

/** The interval's bounds for a table cell or a chart's error bar: null where it has none (`hasInterval`). */
export function boundsOf(i: Interval | null | undefined): { low: number | null; high: number | null } {
  return i && hasInterval(i) ? { low: i.low, high: i.high } : { low: null, high: null };
}

/** A chart bar's bounds, with what its tooltip says in place of an interval it has not (`noInterval`). */
export function barBoundsOf(i: Interval | null | undefined): {
  low: number | null;
  high: number | null;
  note: string | null;
} {
  return { ...boundsOf(i), note: i && !hasInterval(i) ? noInterval(i) : null };
}

/** Options of `bootstrap`: resamples, the RNG's seed, the interval's level, the units the statistic draws on. */
export interface BootstrapOptions<T> {
  iterations?: number;
  seed?: number;
  level?: number;
  carries?: (unit: T) => boolean;
}

/**
 * Percentile bootstrap: resample the units (questions) with replacement `iterations` times and take the
 * 2.5th and 97.5th percentiles of the statistic. Returns null when there are no units or the statistic is
 * undefined on the sample itself. `carries` says which units the statistic draws on (default: all), counted as the
 * interval's `units`; when one unit does, the bounds equal the estimate: see `hasInterval`.
 */
export function bootstrap<T>(
  units: T[],
  statistic: (sample: T[]) => number | null,
  options: BootstrapOptions<T> = {},
): Interval | null {
  return runParts(bootstrapInParts(units, statistic, options));
}

/** Resamples between two pauses of `bootstrapInParts`. */
const RESAMPLES_PER_PART = 50;

/**
 * `bootstrap`'s work in parts: it pauses (yields) after every 50 resamples and returns the same interval, the same
 * resamples drawn in the same order. A caller that must not hold the event loop (a server computing an Experiments
 * cell of 80,000 traces: about 0.1 s on the 2-core machine) lets it turn at the pauses (lib/db/queries/overview.ts);
 * `runParts` runs them all at once.
 */
export function* bootstrapInParts<T>(
  units: T[],
  statistic: (sample: T[]) => number | null,
  { iterations = 1000, seed = 1, level = 0.95, carries }: BootstrapOptions<T> = {},
): Generator<void, Interval | null, void> {
  const estimate = units.length ? statistic(units) : null;
  if (estimate === null) return null;
  const counted = carries ? units.filter(carries).length : units.length;
  const random = seededRandom(seed);
  const values: number[] = [];
  const sample = new Array<T>(units.length);
  for (let done = 0; done < iterations; done += RESAMPLES_PER_PART) {
    resample(units, statistic, random, sample, values, Math.min(RESAMPLES_PER_PART, iterations - done));
    yield;
  }
  if (values.length === 0) return { estimate, low: estimate, high: estimate, units: counted };
  values.sort((a, b) => a - b);
  const q = (p: number) => values[Math.min(values.length - 1, Math.max(0, Math.floor(p * values.length)))];
  return { estimate, low: q((1 - level) / 2), high: q(1 - (1 - level) / 2), units: counted };
}

/**
 * `count` resamples, each statistic's finite value pushed onto `values`. A plain function, not inlined in the
 * generator above: V8 optimises a loop inside a generator less (the same bootstrap took 2.5× as long).
 */
function resample<T>(
  units: T[],
  statistic: (sample: T[]) => number | null,
  random: () => number,
  sample: T[],
  values: number[],
  count: number,
): void {
  for (let i = 0; i < count; i++) {
    for (let j = 0; j < units.length; j++) sample[j] = units[Math.floor(random() * units.length)];
    const v = statistic(sample);
    if (v !== null && Number.isFinite(v)) values.push(v);
  }
}

/** A computation given in parts (a generator that pauses between them), run to its end without pausing. */
export function runParts<R>(parts: Generator<void, R, void>): R {
  for (;;) {
    const step = parts.next();
    if (step.done) return step.value;
  }
}

/** Over-exploration of a set: (Σ exploratory − Σ gold) / Σ gold. */
export function overExploration(units: readonly { exploratory: number; gold: number }[]): number | null {
  let e = 0;
  let g = 0;
  for (const u of units) {
    e += u.exploratory;
    g += u.gold;
  }
  return g > 0 ? (e - g) / g : null;
}

function logChoose(n: number, k: number): number {
  let s = 0;
  for (let i = 1; i <= k; i++) s += Math.log(n - k + i) - Math.log(i);
  return s;
}

/**
 * McNemar's exact test (two-sided) on paired binary outcomes: b = baseline right and other wrong, c = the
 * reverse. Under H0 the discordant pairs split Binomial(b + c, ½); p = min(1, 2·P(X ≤ min(b, c))).
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  const k = Math.min(b, c);
  // log P(X = i) for X ~ Binomial(n, ½), stepped from i to i + 1 in O(1).
  let logP = -n * Math.LN2;
  let p = 0;
  for (let i = 0; i <= k; i++) {
    p += Math.exp(logP);
    logP += Math.log(n - i) - Math.log(i + 1);
  }
  return Math.min(1, 2 * p);
}

/** Unbiased pass@k for one question with n samples of which c are correct: 1 − C(n−c, k) / C(n, k). */
export function passAtK(n: number, c: number, k: number): number {
  if (k > n) throw new Error(`pass@${k} needs at least ${k} samples, got ${n}`);
  if (n - c < k) return 1;
  return 1 - Math.exp(logChoose(n - c, k) - logChoose(n, k));
}

export interface Sample {
  correct: boolean;
  /** Identity of the execution result (equal results, equal keys); null when it did not execute. */
  resultKey: string | null;
}

/**
 * Majority@K for one question: the largest group of samples with equal execution results wins. Samples
 * without a result do not vote. A tie between groups scores the share of tied groups that are correct
 * (the expected accuracy of a random tie-break); no result at all scores 0.
 */
export function majorityAtK(samples: Sample[]): number {
  const groups = new Map<string, { size: number; correct: boolean }>();
  for (const s of samples) {
    if (s.resultKey === null) continue;
    const g = groups.get(s.resultKey) ?? { size: 0, correct: s.correct };
    g.size++;
    groups.set(s.resultKey, g);
  }
  if (groups.size === 0) return 0;
  const largest = Math.max(...[...groups.values()].map((g) => g.size));
  const top = [...groups.values()].filter((g) => g.size === largest);
  return top.filter((g) => g.correct).length / top.length;
}

export interface LinkingCounts {
  truePositive: number;
  predicted: number;
  gold: number;
}

/** Table-level schema linking of one trace: tables in the final SQL against the gold tables. */
export function linkingCounts(final: string[], gold: string[]): LinkingCounts {
  const g = new Set(gold.map((t) => t.toLowerCase()));
  const f = new Set(final.map((t) => t.toLowerCase()));
  return { truePositive: [...f].filter((t) => g.has(t)).length, predicted: f.size, gold: g.size };
}

/** Micro-averaged precision, recall and F1 over traces. */
export function schemaLinking(counts: LinkingCounts[]): {
  precision: number | null;
  recall: number | null;
  f1: number | null;
} {
  const tp = counts.reduce((s, c) => s + c.truePositive, 0);
  const p = counts.reduce((s, c) => s + c.predicted, 0);
  const g = counts.reduce((s, c) => s + c.gold, 0);
  const precision = p ? tp / p : null;
  const recall = g ? tp / g : null;
  const f1 =
    precision !== null && recall !== null && precision + recall > 0
      ? (2 * precision * recall) / (precision + recall)
      : precision !== null && recall !== null
        ? 0
        : null;
  return { precision, recall, f1 };
}

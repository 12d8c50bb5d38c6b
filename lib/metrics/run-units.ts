/**
 * Per-question units of a run, for intervals and paired comparisons (pure). A question's samples form one
 * unit: its accuracy is the share of correct samples, its exploration sums over samples with known gold.
 */
import { bootstrapInParts, majorityAtK, overExploration, passAtK, runParts, type Interval } from "./stats";

export interface TraceUnit {
  questionId: string;
  sample: number;
  dbId: string | null;
  difficulty: string | null;
  /** 1 correct, 0 failed, null unknown (no outcome, gold error, not evaluated). */
  correct: number | null;
  exploratory: number;
  goldCount: number | null;
  extraTables: number | null;
  inputTokens: number;
  outputTokens: number;
  /** The question's first characters, for tables a researcher reads. */
  questionText?: string | null;
  /** Whether the trace recorded token usage (1/0 from the store; absent in hand-made units counts as recorded). */
  tokensRecorded?: number | boolean;
  cost: number | null;
  /** Identity of the evaluated result, for majority votes; null when not evaluated or it did not run. */
  resultKey?: string | null;
}

export interface QuestionUnit {
  questionId: string;
  dbId: string | null;
  difficulty: string | null;
  traces: TraceUnit[];
}

export function groupByQuestion(traces: TraceUnit[]): QuestionUnit[] {
  const map = new Map<string, QuestionUnit>();
  for (const t of traces) addToQuestion(map, t);
  return [...map.values()];
}

function addToQuestion(map: Map<string, QuestionUnit>, t: TraceUnit): void {
  let q = map.get(t.questionId);
  if (!q) map.set(t.questionId, (q = { questionId: t.questionId, dbId: t.dbId, difficulty: t.difficulty, traces: [] }));
  q.traces.push(t);
}

/** A question reduced to what the run-level statistics need, so a bootstrap resamples numbers, not traces. */
export interface QuestionSummary {
  /** Share of its judged samples that are correct; null when none is judged. */
  accuracy: number | null;
  /** Σ exploratory calls and Σ gold tables over its samples with known gold. */
  exploratory: number;
  gold: number;
}

export function summarizeQuestion(u: QuestionUnit): QuestionSummary {
  let correct = 0;
  let judged = 0;
  let exploratory = 0;
  let gold = 0;
  for (const t of u.traces) {
    if (t.correct !== null) {
      judged++;
      correct += t.correct;
    }
    if (t.goldCount !== null) {
      exploratory += t.exploratory;
      gold += t.goldCount;
    }
  }
  return { accuracy: judged ? correct / judged : null, exploratory, gold };
}

export function meanAccuracy(qs: QuestionSummary[]): number | null {
  let sum = 0;
  let n = 0;
  for (const q of qs)
    if (q.accuracy !== null) {
      sum += q.accuracy;
      n++;
    }
  return n ? sum / n : null;
}

export function summaryExploration(qs: QuestionSummary[]): number | null {
  return overExploration(qs);
}

export function accuracy(units: QuestionUnit[]): number | null {
  return meanAccuracy(units.map(summarizeQuestion));
}

export function exploration(units: QuestionUnit[]): number | null {
  return summaryExploration(units.map(summarizeQuestion));
}

export interface RunStats {
  questions: number;
  ex: Interval | null;
  over: Interval | null;
  /** Null when no trace's extra tables are known (they need gold tables). */
  failedWithExtra: number | null;
  /** Σ over the traces that recorded usage; null when none did. */
  inputTokens: number | null;
  outputTokens: number | null;
  tokensRecorded: number;
  cost: number | null;
}

export function runStats(traces: TraceUnit[], seed = 1): RunStats {
  return runParts(runStatsInParts(traces, seed));
}

/** Traces grouped or tallied between two pauses of `runStatsInParts`. */
const TRACES_PER_PART = 10_000;

/** What `runStats` sums over the traces, tallied in one pass (`tally`). */
interface Tallies {
  priced: number;
  cost: number;
  recorded: number;
  inputTokens: number;
  outputTokens: number;
  extraKnown: boolean;
  failedWithExtra: number;
}

/**
 * `runStats` in parts: it pauses after every 10,000 traces grouped and tallied, and within each bootstrap
 * (`bootstrapInParts`); the same figures, summed in the same order. An Experiments cell pools up to 80,000 traces
 * and more (lib/db/queries/overview.ts lets the event loop turn at the pauses).
 */
export function* runStatsInParts(traces: TraceUnit[], seed = 1): Generator<void, RunStats, void> {
  const byQuestion = new Map<string, QuestionUnit>();
  const sums: Tallies = {
    priced: 0,
    cost: 0,
    recorded: 0,
    inputTokens: 0,
    outputTokens: 0,
    extraKnown: false,
    failedWithExtra: 0,
  };
  for (let start = 0; start < traces.length; start += TRACES_PER_PART) {
    tally(traces, start, Math.min(traces.length, start + TRACES_PER_PART), byQuestion, sums);
    yield;
  }
  const units = [...byQuestion.values()].map(summarizeQuestion);
  yield;
  const ex = yield* bootstrapInParts(units, meanAccuracy, { seed, carries: (q) => q.accuracy !== null });
  const over = yield* bootstrapInParts(units, summaryExploration, {
    seed,
    carries: (q) => q.gold > 0 || q.exploratory > 0,
  });
  return {
    questions: units.length,
    ex,
    over,
    failedWithExtra: sums.extraKnown ? sums.failedWithExtra : null,
    inputTokens: sums.recorded ? sums.inputTokens : null,
    outputTokens: sums.recorded ? sums.outputTokens : null,
    tokensRecorded: sums.recorded,
    cost: sums.priced ? sums.cost : null,
  };
}

/** Groups traces[start, end) by question and adds them to the sums (a plain function: see `resample` in stats.ts). */
function tally(traces: TraceUnit[], start: number, end: number, byQuestion: Map<string, QuestionUnit>, sums: Tallies) {
  for (let i = start; i < end; i++) {
    const t = traces[i];
    addToQuestion(byQuestion, t);
    if (t.cost !== null) {
      sums.priced++;
      sums.cost += t.cost;
    }
    if (t.tokensRecorded === undefined || Boolean(t.tokensRecorded)) {
      sums.recorded++;
      sums.inputTokens += t.inputTokens;
      sums.outputTokens += t.outputTokens;
    }
    if (t.extraTables !== null) sums.extraKnown = true;
    if (t.correct === 0 && (t.extraTables ?? 0) > 0) sums.failedWithExtra++;
  }
}

const alphabetical = (a: string, b: string) => a.localeCompare(b, undefined, { numeric: true });

/** Benchmarks' difficulty levels in their natural order (BIRD's, then Spider's), then any other alphabetically. */
const DIFFICULTIES = ["simple", "moderate", "challenging", "easy", "medium", "hard", "extra"];
export function difficultyOrder(a: string, b: string): number {
  const ia = DIFFICULTIES.indexOf(a.toLowerCase());
  const ib = DIFFICULTIES.indexOf(b.toLowerCase());
  if (ia >= 0 && ib >= 0) return ia - ib;
  if (ia >= 0 || ib >= 0) return ia >= 0 ? -1 : 1;
  return alphabetical(a, b);
}

/** Accuracy and over-exploration by a key (difficulty, database), in the key's order (alphabetical by default). */
export function breakdown(
  traces: TraceUnit[],
  key: (t: TraceUnit) => string | null,
  order: (a: string, b: string) => number = alphabetical,
): { key: string; questions: number; ex: number | null; over: number | null }[] {
  const groups = new Map<string, TraceUnit[]>();
  for (const t of traces) {
    const k = key(t) ?? "(none)";
    const list = groups.get(k);
    if (list) list.push(t);
    else groups.set(k, [t]);
  }
  return [...groups.entries()]
    .map(([k, ts]) => {
      const units = groupByQuestion(ts);
      return { key: k, questions: units.length, ex: accuracy(units), over: exploration(units) };
    })
    .sort((a, b) => order(a.key, b.key));
}

/**
 * Multi-sample runs (FlexSQL): Pass@1 is the mean share of correct samples per question; Pass@K the unbiased
 * estimator 1 − C(n−c, K)/C(n, K) of Chen et al. over a question's n judged samples (with n = K: whether any is
 * correct); Majority@K whether the largest group of equal execution results among the first K samples (by sample
 * number) is correct (stats.ts). K defaults to
 * the most samples a question has; a question with fewer than K judged samples is estimated at K = n, and
 * `short` counts them. Majority@K needs an evaluated run: a question none of whose samples executed scores 0
 * and stays in the denominator (DOMAIN.md). Null for a run with one sample per question.
 */
export function sampleStats(
  traces: TraceUnit[],
  requestedK?: number,
): {
  k: number;
  maxK: number;
  questions: number;
  short: number;
  pass1: number;
  passK: number;
  majorityK: number | null;
} | null {
  const units = groupByQuestion(traces).filter((u) => u.traces.some((t) => t.correct !== null));
  const maxK = Math.max(0, ...units.map((u) => u.traces.filter((t) => t.correct !== null).length));
  if (maxK <= 1) return null;
  const k = requestedK && requestedK >= 1 && requestedK <= maxK ? requestedK : maxK;
  // A run is evaluated when any of its traces carries an execution result: only then can a vote be taken.
  const evaluated = traces.some((t) => t.resultKey);
  let pass1 = 0;
  let passK = 0;
  let majority = 0;
  let short = 0;
  for (const u of units) {
    const judged = u.traces.filter((t) => t.correct !== null);
    const correct = judged.filter((t) => t.correct === 1).length;
    pass1 += passAtK(judged.length, correct, 1);
    if (judged.length < k) short++;
    passK += passAtK(judged.length, correct, Math.min(k, judged.length));
    // The vote of K samples: the first K by sample number (issue 30: it took every sample, whatever K).
    const voters = [...u.traces].sort((a, b) => a.sample - b.sample).slice(0, k);
    if (evaluated)
      majority += majorityAtK(voters.map((t) => ({ correct: t.correct === 1, resultKey: t.resultKey ?? null })));
  }
  const n = units.length;
  return {
    k,
    maxK,
    questions: n,
    short,
    pass1: pass1 / n,
    passK: passK / n,
    majorityK: evaluated ? majority / n : null,
  };
}

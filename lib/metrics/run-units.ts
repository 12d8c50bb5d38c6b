/**
 * Per-question units of a run, for intervals and paired comparisons (pure). A question's samples form one
 * unit: its accuracy is the share of correct samples, its exploration sums over samples with known gold.
 */
import { bootstrap, majorityAtK, overExploration, passAtK, type Interval } from "./stats";

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
  for (const t of traces) {
    let q = map.get(t.questionId);
    if (!q) map.set(t.questionId, (q = { questionId: t.questionId, dbId: t.dbId, difficulty: t.difficulty, traces: [] }));
    q.traces.push(t);
  }
  return [...map.values()];
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
    if (t.correct !== null) { judged++; correct += t.correct; }
    if (t.goldCount !== null) { exploratory += t.exploratory; gold += t.goldCount; }
  }
  return { accuracy: judged ? correct / judged : null, exploratory, gold };
}

export function meanAccuracy(qs: QuestionSummary[]): number | null {
  let sum = 0;
  let n = 0;
  for (const q of qs) if (q.accuracy !== null) { sum += q.accuracy; n++; }
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
  failedWithExtra: number;
  inputTokens: number;
  outputTokens: number;
  cost: number | null;
}

export function runStats(traces: TraceUnit[], seed = 1): RunStats {
  const units = groupByQuestion(traces).map(summarizeQuestion);
  const priced = traces.filter((t) => t.cost !== null);
  return {
    questions: units.length,
    ex: bootstrap(units, meanAccuracy, { seed }),
    over: bootstrap(units, summaryExploration, { seed }),
    failedWithExtra: traces.filter((t) => t.correct === 0 && (t.extraTables ?? 0) > 0).length,
    inputTokens: traces.reduce((s, t) => s + t.inputTokens, 0),
    outputTokens: traces.reduce((s, t) => s + t.outputTokens, 0),
    cost: priced.length ? priced.reduce((s, t) => s + (t.cost as number), 0) : null,
  };
}

/** Accuracy and over-exploration by a key (difficulty, database). */
export function breakdown(traces: TraceUnit[], key: (t: TraceUnit) => string | null): { key: string; questions: number; ex: number | null; over: number | null }[] {
  const groups = new Map<string, TraceUnit[]>();
  for (const t of traces) {
    const k = key(t) ?? "(none)";
    const list = groups.get(k);
    if (list) list.push(t);
    else groups.set(k, [t]);
  }
  return [...groups.entries()].map(([k, ts]) => {
    const units = groupByQuestion(ts);
    return { key: k, questions: units.length, ex: accuracy(units), over: exploration(units) };
  }).sort((a, b) => a.key.localeCompare(b.key, undefined, { numeric: true }));
}

/**
 * Multi-sample runs (FlexSQL): Pass@1 is the mean share of correct samples per question, Pass@K whether any
 * of a question's K samples is correct, Majority@K whether the largest group of equal execution results is
 * correct (stats.ts). Null for a run with one sample per question. Majority@K needs evaluated results.
 */
export function sampleStats(traces: TraceUnit[]): { k: number; questions: number; pass1: number; passK: number; majorityK: number | null } | null {
  const units = groupByQuestion(traces).filter((u) => u.traces.some((t) => t.correct !== null));
  const k = Math.max(0, ...units.map((u) => u.traces.length));
  if (k <= 1) return null;
  let pass1 = 0;
  let passK = 0;
  let majority = 0;
  let voted = 0;
  for (const u of units) {
    const judged = u.traces.filter((t) => t.correct !== null);
    const correct = judged.filter((t) => t.correct === 1).length;
    pass1 += passAtK(judged.length, correct, 1);
    passK += passAtK(judged.length, correct, judged.length);
    if (u.traces.some((t) => t.resultKey)) {
      majority += majorityAtK(u.traces.map((t) => ({ correct: t.correct === 1, resultKey: t.resultKey ?? null })));
      voted++;
    }
  }
  return { k, questions: units.length, pass1: pass1 / units.length, passK: passK / units.length, majorityK: voted ? majority / voted : null };
}

/**
 * Paired comparison of runs against a baseline (pure). Runs are aligned on (question, sample); only keys
 * present in every run are compared, and the rest are counted as left out. Against the baseline each
 * question is fixed (baseline wrong, run right), regressed, both right or both wrong; McNemar's exact test
 * runs on the discordant pairs, and the over-exploration difference gets a paired bootstrap interval.
 */
import { SIMULATED_NOTE, type ExportTable } from "./table-export";
import type { TraceUnit } from "./run-units";
import { boundsOf, bootstrap, mcnemarExact, type Interval } from "./stats";

export type PairStatus = "fixed" | "regressed" | "both_right" | "both_wrong" | "unknown";

export interface CompareRow {
  questionId: string;
  sample: number;
  dbId: string | null;
  difficulty: string | null;
  cells: TraceUnit[];
  /** Per run (the baseline's own entry is null). */
  status: (PairStatus | null)[];
  exploratoryDelta: (number | null)[];
  tokenDelta: (number | null)[];
}

export interface RunVsBaseline {
  fixed: number;
  regressed: number;
  bothRight: number;
  bothWrong: number;
  unknown: number;
  mcnemarP: number | null;
  overDifference: Interval | null;
}

export interface Comparison {
  rows: CompareRow[];
  aligned: number;
  leftOut: number[];
  versus: (RunVsBaseline | null)[];
}

const keyOf = (t: { questionId: string; sample: number }) => `${t.questionId}\u0000${t.sample}`;

const INTEGER = /^-?\d+$/;

/**
 * The order of question ids everywhere (the run page's SQL sorts the same way): integer ids by their value, then
 * the others by text; then the sample. Ids are text, but most benchmarks number them (issue 30: 0, 1, 10, …, 2).
 */
export function byQuestionId(a: { questionId: string; sample?: number }, b: { questionId: string; sample?: number }) {
  const ia = INTEGER.test(a.questionId);
  const ib = INTEGER.test(b.questionId);
  if (ia !== ib) return ia ? -1 : 1;
  const byId =
    ia && ib
      ? Number(a.questionId) - Number(b.questionId)
      : a.questionId < b.questionId
        ? -1
        : a.questionId > b.questionId
          ? 1
          : 0;
  return byId || (a.sample ?? 0) - (b.sample ?? 0);
}

export function pairStatus(baseline: number | null, other: number | null): PairStatus {
  if (baseline === null || other === null) return "unknown";
  if (baseline === 0 && other === 1) return "fixed";
  if (baseline === 1 && other === 0) return "regressed";
  return baseline === 1 ? "both_right" : "both_wrong";
}

export function compareRuns(runs: TraceUnit[][], baseline = 0, seed = 1): Comparison {
  const maps = runs.map((units) => new Map(units.map((u) => [keyOf(u), u])));
  const keys = [...maps[baseline].keys()].filter((k) => maps.every((m) => m.has(k)));
  const aligned = new Set(keys);
  const rows: CompareRow[] = keys.map((k): CompareRow => {
    const cells = maps.map((m) => m.get(k)!);
    const b = cells[baseline];
    return {
      questionId: b.questionId,
      sample: b.sample,
      dbId: b.dbId,
      difficulty: b.difficulty,
      cells,
      status: cells.map((c, i) => (i === baseline ? null : pairStatus(b.correct, c.correct))),
      exploratoryDelta: cells.map((c, i) => (i === baseline ? null : c.exploratory - b.exploratory)),
      // Tokens a trace did not record are unknown: no delta, never a delta against 0.
      tokenDelta: cells.map((c, i) =>
        i === baseline ||
        c.tokensRecorded === 0 ||
        c.tokensRecorded === false ||
        b.tokensRecorded === 0 ||
        b.tokensRecorded === false
          ? null
          : c.inputTokens + c.outputTokens - (b.inputTokens + b.outputTokens),
      ),
    };
  });
  rows.sort(byQuestionId);
  const versus = runs.map((_, i): RunVsBaseline | null => {
    if (i === baseline) return null;
    const count = (s: PairStatus) => rows.filter((r) => r.status[i] === s).length;
    const fixed = count("fixed");
    const regressed = count("regressed");
    // Paired bootstrap over questions: each question carries its samples' sums in both runs.
    const perQuestion = new Map<string, { e: number; g: number; eb: number; gb: number }>();
    for (const r of rows) {
      const c = r.cells[i];
      const b = r.cells[baseline];
      if (c.goldCount === null || b.goldCount === null) continue;
      const q = perQuestion.get(r.questionId) ?? { e: 0, g: 0, eb: 0, gb: 0 };
      q.e += c.exploratory;
      q.g += c.goldCount;
      q.eb += b.exploratory;
      q.gb += b.goldCount;
      perQuestion.set(r.questionId, q);
    }
    const withGold = [...perQuestion.values()];
    const diff = (sample: typeof withGold) => {
      let e = 0,
        g = 0,
        eb = 0,
        gb = 0;
      for (const q of sample) {
        e += q.e;
        g += q.g;
        eb += q.eb;
        gb += q.gb;
      }
      return g > 0 && gb > 0 ? (e - g) / g - (eb - gb) / gb : null;
    };
    return {
      fixed,
      regressed,
      bothRight: count("both_right"),
      bothWrong: count("both_wrong"),
      unknown: count("unknown"),
      mcnemarP: rows.length ? mcnemarExact(regressed, fixed) : null,
      overDifference: bootstrap(withGold, diff, { seed }),
    };
  });
  return {
    rows,
    aligned: keys.length,
    leftOut: maps.map((m) => [...m.keys()].filter((k) => !aligned.has(k)).length),
    versus,
  };
}

/**
 * The compare page's filters: regressions or fixes (against the baseline, in any run), database, difficulty, and
 * a label (`labelled`: the `question \0 sample` keys whose trace carries it in any of the runs).
 */
export function filterCompareRows(
  rows: CompareRow[],
  f: { show: "all" | "regressions" | "fixes"; db: string | null; difficulty: string | null },
  labelled?: Set<string> | null,
): CompareRow[] {
  return rows.filter(
    (r) =>
      (f.show === "all" || r.status.includes(f.show === "regressions" ? "regressed" : "fixed")) &&
      (!f.db || r.dbId === f.db) &&
      (!f.difficulty || r.difficulty === f.difficulty) &&
      (!labelled || labelled.has(`${r.questionId}\u0000${r.sample}`)),
  );
}

/** The compare view's headline as a summary table: each run against the baseline. */
export function comparisonTable(
  runs: { system: string; model: string; name: string; simulated: boolean }[],
  comparison: Comparison,
  baseline: number,
): ExportTable {
  const b = runs[baseline];
  return {
    caption: `${runs.some((r) => r.simulated) ? `${SIMULATED_NOTE} ` : ""}Paired comparison with ${b.system} (${b.model}, run ${b.name}) over ${comparison.aligned} (question, sample) pairs present in every run: McNemar's exact test on the discordant pairs; difference in over-exploration with a 95% paired bootstrap interval over questions. Best per column in bold.`,
    label: "tab:comparison",
    columns: [
      { label: "System", kind: "text" },
      { label: "Model", kind: "text" },
      { label: "Fixed", kind: "count", best: "max" },
      { label: "Regressed", kind: "count", best: "min" },
      { label: "Both right", kind: "count" },
      { label: "Both wrong", kind: "count" },
      { label: "McNemar p", kind: "p" },
      { label: "Δ over-exploration", kind: "points", best: "min" },
    ],
    rows: runs.flatMap((r, i) => {
      const v = comparison.versus[i];
      if (!v) return [];
      const d = v.overDifference;
      return [
        [
          r.system,
          r.model,
          { value: v.fixed },
          { value: v.regressed },
          { value: v.bothRight },
          { value: v.bothWrong },
          { value: v.mcnemarP },
          d ? { value: d.estimate, ...boundsOf(d) } : { value: null },
        ],
      ];
    }),
  };
}

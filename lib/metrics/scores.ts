/**
 * Custom scores counted as EX is (pure; docs/metrics.md): per set of traces, a numeric or boolean score's mean over
 * the traces scored, with a 95 % bootstrap interval that resamples questions (the traces of a question move
 * together, as for EX); a categorical score's share of each category. Two runs' scores are compared pair by pair on
 * (question, sample): booleans by McNemar's exact test on the discordant pairs, numbers by the mean paired
 * difference with a paired bootstrap interval over questions.
 */
import { barBoundsOf, boundsOf, bootstrap, hasInterval, mcnemarExact, noInterval, type Interval } from "./stats";
import { groupedBars, type BarItem } from "./chart-series";
import {
  SIMULATED_MARK,
  SIMULATED_ROWS_NOTE,
  toLatex,
  toMarkdown,
  type ExportCell,
  type ExportColumn,
  type ExportTable,
} from "./table-export";

export type ScoreKind = "numeric" | "boolean" | "categorical";

/** One trace's score, where it stands in its run. */
export interface ScoreUnit {
  questionId: string;
  sample: number;
  /** Numeric, or boolean as 1/0; null for a categorical score. */
  value: number | null;
  category: string | null;
}

export interface ScoreSummary {
  name: string;
  kind: ScoreKind;
  /** Traces that carry the score. */
  n: number;
  /** Numeric and boolean: the mean (a boolean's: the share true) with its interval; null for categorical. */
  mean: Interval | null;
  /** Categorical: each category's share of the scored traces, most frequent first. */
  shares: { category: string; n: number; share: number }[] | null;
}

function byQuestion(units: readonly ScoreUnit[]): number[][] {
  const groups = new Map<string, number[]>();
  for (const u of units) {
    if (u.value === null) continue;
    const g = groups.get(u.questionId);
    if (g) g.push(u.value);
    else groups.set(u.questionId, [u.value]);
  }
  return [...groups.values()];
}

const meanOf = (groups: readonly number[][]) => {
  let s = 0;
  let n = 0;
  for (const g of groups)
    for (const v of g) {
      s += v;
      n++;
    }
  return n ? s / n : null;
};

export function summarizeScore(name: string, kind: ScoreKind, units: readonly ScoreUnit[], seed = 1): ScoreSummary {
  if (kind === "categorical") {
    const counts = new Map<string, number>();
    let n = 0;
    for (const u of units)
      if (u.category !== null) {
        counts.set(u.category, (counts.get(u.category) ?? 0) + 1);
        n++;
      }
    const shares = [...counts]
      .map(([category, c]) => ({ category, n: c, share: c / n }))
      .sort((a, b) => b.n - a.n || (a.category < b.category ? -1 : 1));
    return { name, kind, n, mean: null, shares };
  }
  const groups = byQuestion(units);
  const n = groups.reduce((s, g) => s + g.length, 0);
  return { name, kind, n, mean: bootstrap(groups, meanOf, { seed }), shares: null };
}

export interface PairedScore {
  name: string;
  kind: ScoreKind;
  /** Pairs with the score on both sides. */
  pairs: number;
  /** Booleans: baseline true and other false (b), the reverse (c), and McNemar's exact p. */
  mcnemar: { b: number; c: number; p: number } | null;
  /** Numbers (and booleans): the other's mean minus the baseline's, with a paired bootstrap interval. */
  difference: Interval | null;
}

const keyOf = (u: { questionId: string; sample: number }) => `${u.questionId}\u0000${u.sample}`;

/** A score compared between a baseline run and another, on the (question, sample) pairs both scored. */
export function compareScores(
  name: string,
  kind: ScoreKind,
  baseline: readonly ScoreUnit[],
  other: readonly ScoreUnit[],
  seed = 1,
): PairedScore {
  if (kind === "categorical") return { name, kind, pairs: 0, mcnemar: null, difference: null };
  const base = new Map(baseline.filter((u) => u.value !== null).map((u) => [keyOf(u), u]));
  const pairs: { q: string; a: number; b: number }[] = [];
  for (const u of other) {
    const v = base.get(keyOf(u));
    if (v && u.value !== null) pairs.push({ q: u.questionId, a: v.value!, b: u.value });
  }
  const groups = new Map<string, number[]>();
  for (const p of pairs) {
    const g = groups.get(p.q) ?? [];
    g.push(p.b - p.a);
    groups.set(p.q, g);
  }
  const difference = bootstrap([...groups.values()], meanOf, { seed });
  let mcnemar: PairedScore["mcnemar"] = null;
  if (kind === "boolean") {
    const b = pairs.filter((p) => p.a === 1 && p.b === 0).length;
    const c = pairs.filter((p) => p.a === 0 && p.b === 1).length;
    mcnemar = { b, c, p: mcnemarExact(b, c) };
  }
  return { name, kind, pairs: pairs.length, mcnemar, difference };
}

/**
 * A summary table of scores for a paper (LaTeX / Markdown, lib/metrics/table-export.ts): one row per run or cell, one
 * column per score — its mean with the 95 % interval (a boolean's as a percentage), a categorical score's most
 * frequent category and its share — with n in the last column.
 */
export function scoresTable(
  caption: string,
  label: string,
  rows: readonly { name: string; scores: readonly ScoreSummary[] }[],
  rowLabel = "Run",
): ExportTable {
  const names = [...new Set(rows.flatMap((r) => r.scores.map((s) => s.name)))].sort();
  const kindOf = new Map(rows.flatMap((r) => r.scores.map((s) => [s.name, s.kind] as const)));
  return {
    caption,
    label,
    columns: [
      { label: rowLabel, kind: "text" },
      ...names.map((n): ExportColumn => ({
        label: n,
        kind: kindOf.get(n) === "boolean" ? "percent" : kindOf.get(n) === "numeric" ? "count" : "text",
      })),
      { label: "Scored traces", kind: "count" },
    ],
    rows: rows.map((r) => [
      r.name,
      ...names.map((n): ExportCell => {
        const s = r.scores.find((x) => x.name === n);
        if (!s) return { value: null };
        if (s.shares) return s.shares[0] ? `${s.shares[0].category} (${(s.shares[0].share * 100).toFixed(1)} %)` : "";
        return { value: s.mean?.estimate ?? null, ...boundsOf(s.mean) };
      }),
      { value: Math.max(0, ...r.scores.map((s) => s.n)) },
    ]),
  };
}

/** A chart of scores of one kind (booleans as shares, or numbers): a category per score, a series per run or cell. */
export function scoreBars(
  rows: readonly { name: string; system?: string; shade?: number; scores: readonly ScoreSummary[] }[],
  kind: ScoreKind,
) {
  const items: BarItem[] = rows.flatMap((r) =>
    r.scores
      .filter((s) => s.kind === kind && s.mean)
      .map((s) => ({
        category: s.name,
        series: r.name,
        value: s.mean!.estimate,
        ...barBoundsOf(s.mean),
        n: s.n,
      })),
  );
  const bars = groupedBars(items, { series: rows.map((r) => r.name) });
  // each run's or cell's bar in its system's colour and pattern, as in every other chart
  // (and a model's shade of it, where the rows are cells of several models)
  return {
    ...bars,
    info: Object.fromEntries(
      rows.map((r) => [r.name, { system: r.system ?? null, ...(r.shade !== undefined ? { shade: r.shade } : {}) }]),
    ),
  };
}

/**
 * What a scores panel shows (components/scores/scores-panel.tsx): rows named (simulated runs marked), the charts of
 * each kind, and the table as LaTeX and Markdown with n and the interval in its caption.
 */
export function scoresView(
  rows: readonly { name: string; simulated: boolean; system?: string; shade?: number; scores: ScoreSummary[] }[],
  opts: { caption: string; label: string; rowLabel?: string },
) {
  const named = rows.map((r) => ({
    name: r.simulated ? `${r.name}${SIMULATED_MARK}` : r.name,
    system: r.system,
    shade: r.shade,
    scores: r.scores,
  }));
  const caption = `${opts.caption} Custom scores over the traces that carry them: a number's mean, a boolean's share true (%), with 95 % bootstrap intervals over questions${rows.some((r) => r.scores.some((s) => s.mean && !hasInterval(s.mean))) ? " (none where a single question carries a score or every question has the same value)" : ""}; a category's most frequent value and its share.${rows.some((r) => r.simulated) ? ` ${SIMULATED_ROWS_NOTE}` : ""}`;
  const table = scoresTable(caption, opts.label, named, opts.rowLabel);
  return {
    rows: named.map(({ name, scores }) => ({ name, scores })),
    charts: { boolean: scoreBars(named, "boolean"), numeric: scoreBars(named, "numeric") },
    latex: toLatex(table),
    markdown: toMarkdown(table),
  };
}

/** A difference of a score in words: percentage points for a boolean's share, a plain number otherwise. */
export function differenceText(kind: ScoreKind, d: Interval | null): string {
  if (!d) return "not recorded";
  const show = (v: number) =>
    kind === "boolean"
      ? `${v > 0 && (v * 100).toFixed(1) !== "0.0" ? "+" : ""}${(v * 100).toFixed(1)} pp`
      : `${v > 0 ? "+" : ""}${Number(v.toPrecision(3))}`;
  return hasInterval(d)
    ? `${show(d.estimate)} [${show(d.low)}, ${show(d.high)}]`
    : `${show(d.estimate)} (${noInterval(d)})`;
}

/** The paired comparison of scores for a paper: a row per score and run against the baseline. */
export function pairedScoresTable(
  runs: readonly { name: string; simulated: boolean }[],
  baseline: number,
  scores: readonly { name: string; kind: ScoreKind; versus: (PairedScore | null)[] }[],
): ExportTable {
  const simulated = runs.some((r) => r.simulated);
  return {
    caption: `Custom scores of each run against ${runs[baseline].name}, on the (question, sample) pairs both scored: the difference of means (of shares true, in percentage points, for booleans) with a 95 % paired bootstrap interval over questions; McNemar's exact p for booleans.${simulated ? ` ${SIMULATED_ROWS_NOTE}` : ""}`,
    label: "tab:scores-paired",
    columns: [
      { label: "Score", kind: "text" },
      { label: "Run", kind: "text" },
      { label: "Pairs", kind: "count" },
      { label: "Difference", kind: "text" },
      { label: "McNemar p", kind: "p" },
    ],
    rows: scores
      .filter((s) => s.kind !== "categorical")
      .flatMap((s) =>
        s.versus.flatMap((v, i) =>
          v
            ? [
                [
                  s.name,
                  `${runs[i].name}${runs[i].simulated ? SIMULATED_MARK : ""}`,
                  { value: v.pairs },
                  differenceText(s.kind, v.pairs ? v.difference : null),
                  { value: v.mcnemar?.p ?? null },
                ],
              ]
            : [],
        ),
      ),
  };
}

"use client";

import { GroupedBarChart } from "@/components/charts/grouped-bar-chart";
import { TableExport } from "@/components/ui/table-export";
import { useFormats } from "@/components/ui/locale";
import type { Formats } from "@/components/ui/format";
import type { GroupedBars } from "@/lib/metrics/chart-series";
import type { ScoreSummary } from "@/lib/metrics/scores";
import { hasInterval, noInterval } from "@/lib/metrics/stats";

export interface ScoresRow {
  /** A run's or a cell's name, as its chart series and table row. */
  name: string;
  scores: ScoreSummary[];
}

/** A score's summary in words: a mean with its 95 % interval (a boolean's as a share true), or its categories' shares. */
export function scoreText(s: ScoreSummary, f: Formats): string {
  if (s.shares)
    return s.shares.length
      ? s.shares
          .slice(0, 4)
          .map((c) => `${c.category} ${f.percent(c.share, 0)}`)
          .join(", ") + (s.shares.length > 4 ? ", …" : "")
      : "not recorded";
  if (!s.mean) return "not recorded";
  const show = (v: number) => (s.kind === "boolean" ? f.percent(v, 1) : f.count(Number(v.toPrecision(4))));
  return hasInterval(s.mean)
    ? `${show(s.mean.estimate)} [${show(s.mean.low)}, ${show(s.mean.high)}]`
    : `${show(s.mean.estimate)} (${noInterval(s.mean)})`;
}

/** One chart per kind of score that has a mean: booleans' shares, numbers' means. */
const CHARTS = [
  {
    kind: "boolean",
    title: "Boolean scores",
    help: "The share of scored traces whose score is true, with 95% bootstrap intervals over questions",
    format: "percent",
    yLabel: "share true (%)",
  },
  {
    kind: "numeric",
    title: "Numeric scores",
    help: "The mean over scored traces, with 95% bootstrap intervals over questions (scores of different scales share this axis)",
    format: "number",
    yLabel: "mean",
  },
] as const;

/**
 * Custom scores of one run, or of several runs or cells side by side (docs/scores.md): a table (a column per run or
 * cell), charts of the booleans' shares and the numbers' means with their 95 % bootstrap intervals over questions, and
 * the table as LaTeX / Markdown. A score a row does not carry reads "not recorded", never 0.
 */
export function ScoresPanel({
  rows,
  charts,
  latex,
  markdown,
  fileName,
  source,
  testId = "scores",
}: {
  rows: ScoresRow[];
  charts: { boolean: GroupedBars; numeric: GroupedBars };
  latex: string;
  markdown: string;
  fileName: string;
  source: string;
  testId?: string;
}) {
  const f = useFormats();
  const names = [...new Set(rows.flatMap((r) => r.scores.map((s) => s.name)))].sort();
  const kinds = new Map(rows.flatMap((r) => r.scores.map((s) => [s.name, s.kind] as const)));
  return (
    <div className="space-y-2" data-testid={testId}>
      <div className="overflow-x-auto">
        <table className="text-sm">
          <thead>
            <tr className="border-b border-zinc-300 text-left text-xs text-zinc-600">
              <th className="py-1 pr-4 font-medium">Score</th>
              {rows.map((r) => (
                <th key={r.name} className="py-1 pr-4 font-medium">
                  {r.name}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {names.map((n) => (
              <tr key={n} className="border-b border-zinc-100" data-score={n}>
                <td className="py-1 pr-4 font-mono text-xs">
                  {n} <span className="text-zinc-500">({kinds.get(n)})</span>
                </td>
                {rows.map((r) => {
                  const s = r.scores.find((x) => x.name === n);
                  return (
                    <td key={r.name} className="py-1 pr-4 tabular-nums" data-run={r.name}>
                      {s ? (
                        <>
                          {scoreText(s, f)} <span className="text-xs text-zinc-500">n={f.count(s.n)}</span>
                        </>
                      ) : (
                        <span className="text-zinc-500">not recorded</span>
                      )}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <p className="text-xs text-zinc-600">
        Each score is counted over the traces that carry it (n): a number&apos;s mean, a boolean&apos;s share true, with
        a 95% bootstrap interval over questions (none over a single question, or where every question has the same
        value); a category&apos;s share of the scored traces. Scores on steps are not counted here.
      </p>
      <TableExport latex={latex} markdown={markdown} fileName={fileName} testId={`${testId}-export`} />
      <div className="grid gap-3 lg:grid-cols-2">
        {CHARTS.filter((c) => charts[c.kind].data.length > 0).map((c) => (
          <GroupedBarChart
            key={c.kind}
            title={c.title}
            help={c.help}
            fileName={`${fileName}-${c.kind}`}
            bars={charts[c.kind]}
            format={c.format}
            xLabel="score"
            yLabel={c.yLabel}
            testId={`${testId}-chart-${c.kind}`}
            source={source}
          />
        ))}
      </div>
    </div>
  );
}

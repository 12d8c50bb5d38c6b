/** The run overview's chart data (pure): prepared here, drawn by components/runs/run-charts.tsx. */
import { groupedBars, type GroupedBars } from "./chart-series";
import { breakdown, type TraceUnit } from "./run-units";

export interface ScatterPointData {
  x: number;
  y: number;
  count: number;
  label: string;
}

export function explorationScatter(traces: TraceUnit[]): ScatterPointData[] {
  const points = new Map<string, ScatterPointData>();
  for (const t of traces) {
    if (t.goldCount === null) continue;
    const key = `${t.goldCount}:${t.exploratory}`;
    const p = points.get(key) ?? { x: t.goldCount, y: t.exploratory, count: 0, label: "" };
    p.count++;
    p.label = `${p.count} questions: ${t.goldCount} gold, ${t.exploratory} exploratory`;
    points.set(key, p);
  }
  return [...points.values()];
}

/** EX and over-exploration per key (difficulty, database): two series of their own, drawn as two panels. */
export function exOverBreakdown(
  traces: TraceUnit[],
  key: (t: TraceUnit) => string | null,
  order?: (a: string, b: string) => number,
): { ex: GroupedBars; over: GroupedBars } {
  const rows = breakdown(traces, key, order);
  const label = (b: (typeof rows)[number]) => `${b.key} (n=${b.questions})`;
  const categories = rows.map(label);
  const one = (series: string, value: (b: (typeof rows)[number]) => number | null) =>
    groupedBars(
      rows.map((b) => ({ category: label(b), series, value: value(b), n: b.questions })),
      { categories, series: [series] },
    );
  return { ex: one("EX", (b) => b.ex), over: one("over-exploration", (b) => b.over) };
}

export function callsBars(counts: { label: string; calls: number }[], limit = 20): GroupedBars {
  return groupedBars(
    counts.slice(0, limit).map((c) => ({ category: c.label, series: "calls", value: c.calls })),
    { categories: counts.slice(0, limit).map((c) => c.label), series: ["calls"] },
  );
}

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

export function exOverBreakdown(
  traces: TraceUnit[],
  key: (t: TraceUnit) => string | null,
  order?: (a: string, b: string) => number,
): GroupedBars {
  const rows = breakdown(traces, key, order);
  return groupedBars(
    rows.flatMap((b) => [
      { category: `${b.key} (${b.questions})`, series: "EX", value: b.ex },
      { category: `${b.key} (${b.questions})`, series: "over-exploration", value: b.over },
    ]),
    { categories: rows.map((b) => `${b.key} (${b.questions})`), series: ["EX", "over-exploration"] },
  );
}

export function callsBars(counts: { label: string; calls: number }[], limit = 20): GroupedBars {
  return groupedBars(
    counts.slice(0, limit).map((c) => ({ category: c.label, series: "calls", value: c.calls })),
    { categories: counts.slice(0, limit).map((c) => c.label), series: ["calls"] },
  );
}

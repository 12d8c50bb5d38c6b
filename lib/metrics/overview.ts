/**
 * The experiment overview (pure): per dataset, a model × system matrix of runs with intervals, and the
 * series of the Sophrosyne figures — over-exploration per model and system (Fig. 5a), failed-with-extra-tables
 * (Fig. 5b), EX and tokens (Table 3), cost with directive overhead (Table 4).
 */
import { groupedBars, orderSystems, type GroupedBars } from "./chart-series";
import { runStats, type RunStats, type TraceUnit } from "./run-units";
import type { RunAggregates } from "./run-metrics";
import type { Interval } from "./stats";

export interface OverviewCell {
  runId: string;
  name: string;
  simulated: boolean;
  stats: RunStats;
  aggregates: RunAggregates;
}

export interface OverviewGroup {
  group: string;
  systems: string[];
  models: string[];
  /** cells[model][system]: the runs of that pair, newest first. */
  cells: Record<string, Record<string, OverviewCell[]>>;
  charts: { over: GroupedBars; failedWithExtra: GroupedBars; ex: GroupedBars; tokens: GroupedBars; cost: GroupedBars };
}

export function buildOverview(runs: (RunAggregates & { id: string; name: string; system: string; model: string; group: string; simulated?: number | null })[], unitsOf: (runId: string) => TraceUnit[]): OverviewGroup[] {
  const groups = new Map<string, typeof runs>();
  for (const r of runs) {
    const list = groups.get(r.group);
    if (list) list.push(r);
    else groups.set(r.group, [r]);
  }
  return [...groups.entries()].map(([group, list]) => {
    const systems = orderSystems(list.map((r) => r.system));
    const models = [...new Set(list.map((r) => r.model))].sort();
    const cells: OverviewGroup["cells"] = {};
    for (const r of list) {
      cells[r.model] ??= {};
      (cells[r.model][r.system] ??= []).push({ runId: r.id, name: r.name, simulated: Boolean(r.simulated), stats: runStats(unitsOf(r.id)), aggregates: r });
    }
    // Charts use each pair's newest run.
    const newest = models.flatMap((m) => systems.map((s) => ({ model: m, system: s, cell: cells[m]?.[s]?.[0] }))).filter((x) => x.cell);
    const bars = (value: (c: OverviewCell) => number | null | Interval) =>
      groupedBars(newest.map((x) => {
        const v = value(x.cell!);
        return { category: x.model, series: x.system, ...(v !== null && typeof v === "object" ? { value: v.estimate, low: v.low, high: v.high } : { value: v }) };
      }), { categories: models, series: systems });
    const costItems = newest.flatMap((x) => [
      { category: x.model, series: `${x.system}: agent`, value: x.cell!.aggregates.cost },
      { category: x.model, series: `${x.system}: directives`, value: x.cell!.aggregates.directiveOverheadCost },
    ]);
    return {
      group, systems, models, cells,
      charts: {
        over: bars((c) => c.stats.over),
        failedWithExtra: bars((c) => c.stats.failedWithExtra),
        ex: bars((c) => c.stats.ex),
        tokens: groupedBars(newest.flatMap((x) => [
          { category: x.model, series: `${x.system}: input`, value: x.cell!.stats.inputTokens },
          { category: x.model, series: `${x.system}: output`, value: x.cell!.stats.outputTokens },
        ]), { categories: models, series: systems.flatMap((s) => [`${s}: input`, `${s}: output`]) }),
        cost: groupedBars(costItems, { categories: models, series: systems.flatMap((s) => [`${s}: agent`, `${s}: directives`]) }),
      },
    };
  });
}

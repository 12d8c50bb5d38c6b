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
  /** The runs this cell pools: a question's traces from several runs are samples of that question. */
  runs: { id: string; name: string; simulated: boolean }[];
  stats: RunStats;
  aggregates: RunAggregates;
}

export interface OverviewGroup {
  group: string;
  systems: string[];
  models: string[];
  /** cells[model][system]: the pooled runs of that pair. */
  cells: Record<string, Record<string, OverviewCell>>;
  charts: { over: GroupedBars; failedWithExtra: GroupedBars; ex: GroupedBars; tokens: GroupedBars; cost: GroupedBars };
}

export interface CellInput extends RunAggregates {
  group: string;
  model: string;
  system: string;
  runs: { id: string; name: string; simulated: boolean }[];
}

/** Splits the run list a cell query returns (`id\u0001name\u0001simulated`, joined by `\u0002`). */
export function parseRunList(list: string | null): CellInput["runs"] {
  return (list ?? "")
    .split("\u0002")
    .filter(Boolean)
    .map((r) => {
      const [id, name, simulated] = r.split("\u0001");
      return { id, name, simulated: simulated === "1" };
    });
}

export function buildOverview(cellsIn: CellInput[], unitsOf: (runId: string) => TraceUnit[]): OverviewGroup[] {
  const groups = new Map<string, CellInput[]>();
  for (const c of cellsIn) {
    const list = groups.get(c.group);
    if (list) list.push(c);
    else groups.set(c.group, [c]);
  }
  return [...groups.entries()].map(([group, list]) => {
    const systems = orderSystems(list.map((r) => r.system));
    const models = [...new Set(list.map((r) => r.model))].sort();
    const cells: OverviewGroup["cells"] = {};
    for (const c of list) {
      const { group: _g, model, system, runs, ...aggregates } = c;
      void _g;
      (cells[model] ??= {})[system] = { runs, stats: runStats(runs.flatMap((r) => unitsOf(r.id))), aggregates };
    }
    const present = models
      .flatMap((m) => systems.map((s) => ({ model: m, system: s, cell: cells[m]?.[s] })))
      .filter((x) => x.cell);
    const bars = (value: (c: OverviewCell) => number | null | Interval) =>
      groupedBars(
        present.map((x) => {
          const v = value(x.cell!);
          return {
            category: x.model,
            series: x.system,
            ...(v !== null && typeof v === "object" ? { value: v.estimate, low: v.low, high: v.high } : { value: v }),
          };
        }),
        { categories: models, series: systems },
      );
    const costItems = present.flatMap((x) => [
      { category: x.model, series: `${x.system}: agent`, value: x.cell!.aggregates.cost },
      { category: x.model, series: `${x.system}: directives`, value: x.cell!.aggregates.directiveOverheadCost },
    ]);
    return {
      group,
      systems,
      models,
      cells,
      charts: {
        over: bars((c) => c.stats.over),
        failedWithExtra: bars((c) => c.stats.failedWithExtra),
        ex: bars((c) => c.stats.ex),
        tokens: groupedBars(
          present.flatMap((x) => [
            { category: x.model, series: `${x.system}: input`, value: x.cell!.stats.inputTokens },
            { category: x.model, series: `${x.system}: output`, value: x.cell!.stats.outputTokens },
          ]),
          { categories: models, series: systems.flatMap((s) => [`${s}: input`, `${s}: output`]) },
        ),
        cost: groupedBars(costItems, {
          categories: models,
          series: systems.flatMap((s) => [`${s}: agent`, `${s}: directives`]),
        }),
      },
    };
  });
}

/** The runs a group's figures cover, for exported charts: "name (id), …". */
export function coveredRuns(g: Pick<OverviewGroup, "cells">): string {
  return Object.values(g.cells)
    .flatMap((bySystem) => Object.values(bySystem).flatMap((c) => c.runs.map((r) => `${r.name} (${r.id})`)))
    .join(", ");
}

/**
 * The experiment overview (pure): per dataset, a model × system matrix of runs with intervals, and the
 * series of the Sophrosyne figures — over-exploration per model and system (Fig. 5a), failed-with-extra-tables
 * (Fig. 5b), EX and tokens (Table 3), cost with directive overhead (Table 4).
 */
import { groupedBars, orderSystems, type GroupedBars } from "./chart-series";
import { SIMULATED_MARK, SIMULATED_ROWS_NOTE, type ExportTable } from "./table-export";
import { runStatsInParts, type RunStats, type TraceUnit } from "./run-units";
import type { RunAggregates } from "./run-metrics";
import { barBoundsOf, boundsOf, hasInterval, runParts, type Interval } from "./stats";

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

/** A cell's figures: its runs' traces pooled (a question's traces from several runs are samples of that question). */
export function cellStats(cell: Pick<CellInput, "runs">, unitsOf: (runId: string) => TraceUnit[]): RunStats {
  return runParts(cellStatsInParts(cell, unitsOf));
}

/** `cellStats` in parts (`runStatsInParts`), for a caller that lets the event loop turn between them. */
export function cellStatsInParts(
  cell: Pick<CellInput, "runs">,
  unitsOf: (runId: string) => TraceUnit[],
): Generator<void, RunStats, void> {
  // `concat`, not `flatMap`: on a cell of 17 runs of 5,000 traces, 2 ms against 15–80.
  return runStatsInParts(([] as TraceUnit[]).concat(...cell.runs.map((r) => unitsOf(r.id))));
}

/**
 * The groups of a view. `stats` holds cells' figures computed beforehand (`cellStats`: a caller that computes them one
 * cell per turn of the event loop, lib/db/queries/overview.ts); a cell missing from it is computed here.
 */
export function buildOverview(
  cellsIn: CellInput[],
  unitsOf: (runId: string) => TraceUnit[],
  stats: ReadonlyMap<CellInput, RunStats> = new Map(),
): OverviewGroup[] {
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
      (cells[model] ??= {})[system] = { runs, stats: stats.get(c) ?? cellStats(c, unitsOf), aggregates };
    }
    const present = models
      .flatMap((m) => systems.map((s) => ({ model: m, system: s, cell: cells[m]?.[s] })))
      .filter((x) => x.cell);
    const bars = (value: (c: OverviewCell) => number | null | Interval, n: (c: OverviewCell) => number | null) => ({
      ...groupedBars(
        present.map((x) => {
          const v = value(x.cell!);
          return {
            category: x.model,
            series: x.system,
            n: n(x.cell!),
            ...(v !== null && typeof v === "object" ? { value: v.estimate, ...barBoundsOf(v) } : { value: v }),
          };
        }),
        { categories: models, series: systems },
      ),
      info: Object.fromEntries(systems.map((s) => [s, { system: s }])),
    });
    // Two parts of one bar per system: the second (output tokens, directive overhead) drawn lighter.
    const stacked = (parts: [string, string], value: (c: OverviewCell, part: 0 | 1) => number | null) => ({
      ...groupedBars(
        present.flatMap((x) =>
          parts.map((p, i) => ({
            category: x.model,
            series: `${x.system}: ${p}`,
            value: value(x.cell!, i as 0 | 1),
            n: x.cell!.stats.questions,
          })),
        ),
        { categories: models, series: systems.flatMap((s) => parts.map((p) => `${s}: ${p}`)) },
      ),
      info: Object.fromEntries(
        systems.flatMap((s) => parts.map((p, i) => [`${s}: ${p}`, { system: s, stack: s, ...(i ? { part: p } : {}) }])),
      ),
    });
    const questions = (c: OverviewCell) => c.stats.questions;
    return {
      group,
      systems,
      models,
      cells,
      charts: {
        over: bars((c) => c.stats.over, questions),
        failedWithExtra: bars((c) => c.stats.failedWithExtra, questions),
        ex: bars((c) => c.stats.ex, questions),
        tokens: stacked(["input", "output"], (c, i) => (i ? c.stats.outputTokens : c.stats.inputTokens)),
        cost: stacked(["agent", "directives"], (c, i) => (i ? c.aggregates.directiveOverheadCost : c.aggregates.cost)),
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

const interval = (i: Interval | null) => (i ? { value: i.estimate, ...boundsOf(i) } : { value: null });

/** A dataset's matrix as a summary table (one row per model × system), for LaTeX and Markdown. */
export function overviewTable(g: OverviewGroup): ExportTable {
  const rows: ExportTable["rows"] = [];
  const perRow: number[] = [];
  const ns = new Set<number>();
  let simulated = false;
  let single = false;
  for (const m of g.models)
    for (const s of g.systems) {
      const c = g.cells[m]?.[s];
      if (!c) continue;
      ns.add(c.stats.questions);
      single ||= [c.stats.ex, c.stats.over].some((i) => i !== null && !hasInterval(i));
      perRow.push(c.stats.questions);
      // A row is marked simulated when a run of its cell is: the table's real rows are not (issue 30).
      const sim = c.runs.some((r) => r.simulated);
      simulated ||= sim;
      rows.push([
        m,
        `${s}${sim ? SIMULATED_MARK : ""}`,
        interval(c.stats.ex),
        interval(c.stats.over),
        { value: c.stats.failedWithExtra },
        { value: c.stats.inputTokens },
        { value: c.stats.outputTokens },
        { value: c.aggregates.cost },
        { value: c.stats.questions },
      ]);
    }
  const n = ns.size === 1 ? `n = ${[...ns][0]} questions per cell` : "n (questions) per row";
  const best =
    ns.size === 1
      ? "Best per column in bold."
      : "Best per column in bold; totals (failed traces, tokens, cost) are not compared across rows of different n.";
  return {
    caption: `${g.group}: execution accuracy (EX: the mean over questions of the share of each question's judged traces that are correct) and over-exploration per model and system, with 95% bootstrap intervals over questions${single ? " (none where a figure comes from a single question, for EX a single judged one, or every question has the same value)" : ""}; ${n}. ${best}${simulated ? ` ${SIMULATED_ROWS_NOTE}` : ""}`,
    label: `tab:${g.group}`,
    columns: [
      { label: "Model", kind: "text" },
      { label: "System", kind: "text" },
      { label: "EX", kind: "percent", best: "max" },
      { label: "Over-exploration", kind: "percent", best: "min" },
      { label: "Failed w/ extra tables", kind: "count", best: "min", total: true },
      { label: "Input tokens", kind: "count", best: "min", total: true },
      { label: "Output tokens", kind: "count", best: "min", total: true },
      { label: "Cost", kind: "usd", best: "min", total: true },
      { label: "n", kind: "count" },
    ],
    rows,
    n: perRow,
  };
}

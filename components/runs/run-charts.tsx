"use client";

import { GroupedBarChart } from "@/components/charts/grouped-bar-chart";
import { ExplorationScatter, type ScatterPoint } from "@/components/charts/scatter-chart";
import type { GroupedBars } from "@/lib/metrics/chart-series";

export interface RunChartData {
  scatter: ScatterPoint[];
  byDifficulty: { ex: GroupedBars; over: GroupedBars };
  byDatabase: { ex: GroupedBars; over: GroupedBars };
  byRole: GroupedBars;
  byTool: GroupedBars;
}

const EX_HELP = "Correct over judged questions";
const OVER_HELP = "(Σ exploratory − Σ gold) / Σ gold over questions with gold tables; 0 % is no over-exploration";

/** The run overview's charts, in the run's system colour; the data is prepared on the server (lib/metrics). */
export function RunCharts({ data, fileBase, system }: { data: RunChartData; fileBase: string; system: string }) {
  const pair = (by: "difficulty" | "database", bars: { ex: GroupedBars; over: GroupedBars }) => (
    <>
      <GroupedBarChart
        title={`Execution accuracy by ${by}`}
        help={EX_HELP}
        fileName={`${fileBase}-ex-${by}`}
        bars={bars.ex}
        format="percent"
        xLabel={by}
        yLabel="execution accuracy (%)"
        system={system}
        testId={`chart-ex-${by}`}
      />
      <GroupedBarChart
        title={`Over-exploration by ${by}`}
        help={OVER_HELP}
        fileName={`${fileBase}-over-${by}`}
        bars={bars.over}
        format="percent"
        xLabel={by}
        yLabel="over-exploration (%)"
        system={system}
        testId={`chart-over-${by}`}
      />
    </>
  );
  return (
    <div className="grid gap-3 lg:grid-cols-2" data-testid="run-charts">
      <ExplorationScatter points={data.scatter} fileName={`${fileBase}-exploration`} system={system} />
      <GroupedBarChart
        title="Tool calls by role"
        help="Every tool call of the run, by its role in the taxonomy"
        fileName={`${fileBase}-roles`}
        bars={data.byRole}
        xLabel="role"
        yLabel="tool calls"
        system={system}
        testId="chart-roles"
      />
      {pair("difficulty", data.byDifficulty)}
      {pair("database", data.byDatabase)}
      <GroupedBarChart
        title="Tool calls by tool"
        help="The 20 most called tools (FlexSQL's Table 8)"
        fileName={`${fileBase}-tools`}
        bars={data.byTool}
        xLabel="tool"
        yLabel="tool calls"
        system={system}
        testId="chart-tools"
      />
    </div>
  );
}

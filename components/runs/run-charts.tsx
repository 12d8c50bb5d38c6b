"use client";

import { GroupedBarChart } from "@/components/charts/grouped-bar-chart";
import { ExplorationScatter, type ScatterPoint } from "@/components/charts/scatter-chart";
import type { GroupedBars } from "@/lib/metrics/chart-series";

export interface RunChartData {
  scatter: ScatterPoint[];
  byDifficulty: GroupedBars;
  byDatabase: GroupedBars;
  byRole: GroupedBars;
  byTool: GroupedBars;
}

/** The run overview's charts; the data is prepared on the server (lib/metrics). */
export function RunCharts({ data, fileBase }: { data: RunChartData; fileBase: string }) {
  return (
    <div className="grid gap-3 lg:grid-cols-2" data-testid="run-charts">
      <ExplorationScatter points={data.scatter} fileName={`${fileBase}-exploration`} />
      <GroupedBarChart
        title="Tool calls by role"
        help="Every tool call of the run, by its role in the taxonomy"
        fileName={`${fileBase}-roles`}
        bars={data.byRole}
        testId="chart-roles"
      />
      <GroupedBarChart
        title="EX and over-exploration by difficulty"
        help="Accuracy over judged questions; over-exploration (Σ exploratory − Σ gold) / Σ gold"
        fileName={`${fileBase}-difficulty`}
        bars={data.byDifficulty}
        format="percent"
        testId="chart-difficulty"
      />
      <GroupedBarChart
        title="EX and over-exploration by database"
        fileName={`${fileBase}-database`}
        bars={data.byDatabase}
        format="percent"
        testId="chart-database"
      />
      <GroupedBarChart
        title="Tool calls by tool"
        help="The 20 most called tools (FlexSQL's Table 8)"
        fileName={`${fileBase}-tools`}
        bars={data.byTool}
        testId="chart-tools"
      />
    </div>
  );
}

"use client";

import { GroupedBarChart } from "@/components/charts/grouped-bar-chart";
import type { OverviewGroup } from "@/lib/metrics/overview";

export function OverviewCharts({ g, source }: { g: Pick<OverviewGroup, "group" | "charts">; source: string }) {
  const base = g.group.replace(/[^\w.-]+/g, "_");
  return (
    <div className="grid gap-3 lg:grid-cols-2">
      <GroupedBarChart
        title="Over-exploration per model and system"
        help="(Σ exploratory − Σ gold) / Σ gold, with 95% bootstrap intervals over questions (Sophrosyne Fig. 5a)"
        fileName={`${base}-over-exploration`}
        bars={g.charts.over}
        format="percent"
        xLabel="model"
        yLabel="over-exploration (%)"
        testId="chart-over"
        source={source}
      />
      <GroupedBarChart
        title="Failed with extra tables"
        help="Failed traces whose final SQL reads a table the gold SQL does not (Fig. 5b)"
        fileName={`${base}-failed-extra`}
        bars={g.charts.failedWithExtra}
        xLabel="model"
        yLabel="failed traces with extra tables"
        testId="chart-failed-extra"
        source={source}
      />
      <GroupedBarChart
        title="Execution accuracy"
        help="EX per cell: the mean over questions of each question's share of correct judged traces, with 95% bootstrap intervals over questions (Table 3). A run's own page counts correct over judged traces; the two agree when each question has one judged trace."
        fileName={`${base}-ex`}
        bars={g.charts.ex}
        format="percent"
        xLabel="model"
        yLabel="execution accuracy (%)"
        testId="chart-ex"
        source={source}
      />
      <GroupedBarChart
        title="Tokens"
        help="Input tokens, and output tokens stacked on them lighter (output includes reasoning) (Table 3)"
        fileName={`${base}-tokens`}
        bars={g.charts.tokens}
        format="tokens"
        xLabel="model"
        yLabel="tokens"
        testId="chart-tokens"
        source={source}
      />
      <GroupedBarChart
        title="Cost with directive overhead"
        help="The agent's cost, and what computing the directives cost stacked on it lighter (Table 4)"
        fileName={`${base}-cost`}
        bars={g.charts.cost}
        format="usd"
        xLabel="model"
        yLabel="cost (USD)"
        testId="chart-cost"
        source={source}
      />
    </div>
  );
}

"use client";

import { GroupedBarChart } from "@/components/charts/grouped-bar-chart";
import type { GroupedBars } from "@/lib/metrics/chart-series";

/** Labelled failure causes per system × model of one dataset (labels set on question pages or imported). */
export function FailureCauses({ group, bars, source }: { group: string; bars: GroupedBars; source: string }) {
  return (
    <GroupedBarChart
      title="Failure causes"
      help="Traces labelled with each cause, per model and system (a trace counts once per cause, whether the label is on the trace or a step)"
      fileName={`${group.replace(/[^\w.-]+/g, "_")}-failure-causes`}
      bars={bars}
      xLabel="failure cause"
      yLabel="labelled traces"
      testId="chart-causes"
      source={source}
    />
  );
}

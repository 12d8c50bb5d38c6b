"use client";

import dynamic from "next/dynamic";
import { LoadWhenVisible } from "@/components/charts/load-when-visible";
import type { RunChartData } from "./run-charts";

const RunCharts = dynamic(() => import("./run-charts").then((m) => m.RunCharts), {
  ssr: false,
  loading: () => <p className="py-8 text-center text-sm text-zinc-500">Loading the charts…</p>,
});

/** The run page's charts, loaded (code and all) when they scroll into view. */
export function LazyRunCharts(props: { data: RunChartData; fileBase: string; system: string }) {
  return (
    <LoadWhenVisible minHeight={900} label="The run's charts">
      <RunCharts {...props} />
    </LoadWhenVisible>
  );
}

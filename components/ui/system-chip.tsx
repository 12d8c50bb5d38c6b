"use client";

import { Swatch } from "@/components/charts/chart-frame";
import { seriesStyle } from "@/components/charts/palette";

/** A system's name with its colour and pattern, the same as in every chart. */
export function SystemChip({ system }: { system: string }) {
  return (
    <span className="inline-flex items-center gap-1.5">
      <Swatch item={{ label: system, style: seriesStyle(undefined, system) }} />
      {system}
    </span>
  );
}

"use client";

import { useState } from "react";
import type { TableChip } from "@/lib/metrics/table-strip";
import { TableStrip } from "./table-strip";
import { Timeline, type TimelineProps } from "./timeline";

/** The table strip and the timeline share the selected table: its steps are highlighted. */
export function TraceExplorer({
  chips,
  legend = true,
  ...timeline
}: Omit<TimelineProps, "highlightTable"> & { chips: TableChip[]; legend?: boolean }) {
  const [table, setTable] = useState<string | null>(null);
  const chip = chips.find((c) => c.name === table);
  return (
    <div className="space-y-3">
      <TableStrip chips={chips} selected={table} onSelect={setTable} hasGold={timeline.gold !== null} legend={legend} />
      {chip && (
        <p className="text-xs text-zinc-600" data-testid="table-selection">
          {chip.name}: touched by {chip.touched} steps
          {chip.seqs.length ? ` (${chip.seqs.slice(0, 20).join(", ")}${chip.seqs.length > 20 ? ", …" : ""})` : ""},
          highlighted below.
        </p>
      )}
      <Timeline {...timeline} highlightTable={table} />
    </div>
  );
}

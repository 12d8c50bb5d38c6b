"use client";

import type { TableChip } from "@/lib/metrics/table-strip";

/** Every table of the question's database as a chip; a click highlights the steps that touched it. */
export function TableStrip({
  chips,
  selected,
  onSelect,
  hasGold,
  legend = true,
}: {
  chips: TableChip[];
  selected: string | null;
  onSelect: (t: string | null) => void;
  hasGold: boolean;
  /** False where one legend serves several strips (the side-by-side view). */
  legend?: boolean;
}) {
  return (
    <section aria-label="Tables" className="space-y-2">
      <div className="flex flex-wrap gap-1.5" data-testid="table-strip">
        {chips.map((c) => {
          const standOut = c.goldNeverExplored
            ? "ring-2 ring-red-500"
            : c.nonGoldExplored
              ? "ring-2 ring-amber-500"
              : "";
          const base = c.gold ? "border-emerald-600 bg-emerald-50" : "border-zinc-300 bg-white";
          const active = selected === c.name ? "outline outline-2 outline-blue-600" : "";
          const title = [
            c.gold ? "gold table" : hasGold ? "not in the gold SQL" : "gold tables unknown",
            `explored ${c.explored}×, touched by ${c.touched} steps`,
            c.flagged ? "flagged irrelevant by a directive" : null,
            c.inFinal ? "in the final SQL" : null,
            c.goldNeverExplored ? "gold but never explored" : null,
            c.nonGoldExplored ? "explored but not gold" : null,
          ]
            .filter(Boolean)
            .join(" · ");
          return (
            <button
              key={c.name}
              type="button"
              title={title}
              aria-pressed={selected === c.name}
              data-table={c.name}
              onClick={() => onSelect(selected === c.name ? null : c.name)}
              className={`flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs ${base} ${standOut} ${active} ${c.touched === 0 && !c.gold && !c.inFinal ? "border-dashed text-zinc-600" : ""}`}
            >
              {c.gold && (
                <span className="font-semibold text-emerald-700" aria-label="gold">
                  ★
                </span>
              )}
              <span className={c.flagged ? "line-through decoration-zinc-500" : ""}>{c.name}</span>
              {c.explored > 0 && (
                <span
                  className="rounded bg-violet-100 px-1 text-violet-800"
                  aria-label={`explored ${c.explored} times`}
                >
                  {c.explored}×
                </span>
              )}
              {c.inFinal && (
                <span className="rounded bg-zinc-800 px-1 text-white" aria-label="in the final SQL">
                  final
                </span>
              )}
            </button>
          );
        })}
      </div>
      {legend && <TableStripLegend />}
    </section>
  );
}

/** What the chips' marks mean. */
export function TableStripLegend() {
  return (
    <p className="flex flex-wrap gap-3 text-xs text-zinc-500" data-testid="table-strip-legend">
      <span>
        <span className="text-emerald-700">★</span> gold (read by the gold SQL)
      </span>
      <span>
        <span className="rounded bg-violet-100 px-1 text-violet-800">n×</span> explored n times (describe / schema
        probe)
      </span>
      <span>
        <span className="line-through">name</span> flagged irrelevant by a directive
      </span>
      <span>
        <span className="rounded bg-zinc-800 px-1 text-white">final</span> in the final SQL
      </span>
      <span>
        <span className="rounded-full px-1 ring-2 ring-red-500">red ring</span> gold, never explored
      </span>
      <span>
        <span className="rounded-full px-1 ring-2 ring-amber-500">amber ring</span> explored, not gold
      </span>
    </p>
  );
}

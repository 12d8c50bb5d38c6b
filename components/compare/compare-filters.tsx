"use client";

import { useQueryStates } from "nuqs";
import { compareSearchParams } from "@/lib/url/compare";

export function CompareFilters({ runs, baselineId, databases, difficulties }: { runs: { id: string; label: string }[]; baselineId: string; databases: string[]; difficulties: string[] }) {
  const [params, setParams] = useQueryStates(compareSearchParams, { shallow: false });
  return (
    <div className="flex flex-wrap items-center gap-3 text-sm" data-testid="compare-filters">
      <label className="flex items-center gap-1">Baseline
        <select aria-label="Baseline" className="rounded border border-zinc-300 bg-white px-2 py-1" value={baselineId} onChange={(e) => void setParams({ baseline: e.target.value, page: 1 })}>
          {runs.map((r) => <option key={r.id} value={r.id}>{r.label}</option>)}
        </select>
      </label>
      {(["all", "regressions", "fixes"] as const).map((s) => (
        <label key={s} className="flex items-center gap-1">
          <input type="radio" name="show" checked={params.show === s} onChange={() => void setParams({ show: s, page: 1 })} /> {s === "all" ? "all questions" : `${s} only`}
        </label>
      ))}
      <select aria-label="Filter by database" className="rounded border border-zinc-300 bg-white px-2 py-1" value={params.db ?? ""} onChange={(e) => void setParams({ db: e.target.value || null, page: 1 })}>
        <option value="">all databases</option>
        {databases.map((d) => <option key={d} value={d}>{d}</option>)}
      </select>
      <select aria-label="Filter by difficulty" className="rounded border border-zinc-300 bg-white px-2 py-1" value={params.difficulty ?? ""} onChange={(e) => void setParams({ difficulty: e.target.value || null, page: 1 })}>
        <option value="">all difficulties</option>
        {difficulties.map((d) => <option key={d} value={d}>{d}</option>)}
      </select>
    </div>
  );
}

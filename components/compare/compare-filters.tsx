"use client";

import { useQueryStates } from "nuqs";
import { FacetSelect, QuestionFacets } from "@/components/ui/facet-select";
import { compareSearchParams } from "@/lib/url/compare";

export function CompareFilters({
  runs,
  baselineId,
  databases,
  difficulties,
  labels = [],
}: {
  runs: { id: string; label: string }[];
  baselineId: string;
  databases: string[];
  difficulties: string[];
  labels?: string[];
}) {
  const [params, setParams] = useQueryStates(compareSearchParams, { shallow: false });
  return (
    <div className="flex flex-wrap items-center gap-3 text-sm" data-testid="compare-filters">
      <label className="flex items-center gap-1">
        Baseline
        <select
          aria-label="Baseline"
          className="rounded border border-zinc-300 bg-white px-2 py-1"
          value={baselineId}
          onChange={(e) => void setParams({ baseline: e.target.value, page: 1 })}
        >
          {runs.map((r) => (
            <option key={r.id} value={r.id}>
              {r.label}
            </option>
          ))}
        </select>
      </label>
      {(["all", "regressions", "fixes"] as const).map((s) => (
        <label key={s} className="flex items-center gap-1">
          <input
            type="radio"
            name="show"
            checked={params.show === s}
            onChange={() => void setParams({ show: s, page: 1 })}
          />{" "}
          {s === "all" ? "all questions" : `${s} only`}
        </label>
      ))}
      <QuestionFacets
        db={params.db}
        difficulty={params.difficulty}
        databases={databases}
        difficulties={difficulties}
        onChange={(patch) => void setParams({ ...patch, page: 1 })}
      />
      {labels.length > 0 && (
        <FacetSelect
          label="label"
          allLabel="any label or none"
          value={params.label}
          options={labels}
          onChange={(label) => void setParams({ label, page: 1 })}
        />
      )}
    </div>
  );
}

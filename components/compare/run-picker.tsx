"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";

/** Pick two or more runs (and a baseline) to compare; the choice becomes the URL. */
export function RunPicker({
  runs,
  selected,
}: {
  runs: { id: string; name: string; system: string; model: string; group: string; traces: number }[];
  selected: string[];
}) {
  const router = useRouter();
  const [chosen, setChosen] = useState<string[]>(selected);
  const groups = [...new Set(runs.map((r) => r.group))];
  const go = () =>
    router.push(`/compare?runs=${chosen.map(encodeURIComponent).join(",")}&baseline=${encodeURIComponent(chosen[0])}`);
  return (
    <div className="space-y-3 rounded-lg border border-zinc-200 bg-white p-4 text-sm" data-testid="run-picker">
      <p className="text-zinc-600">
        Choose two or more runs; the first chosen is the baseline. Runs are aligned on (question, sample).
      </p>
      {groups.map((g) => (
        <fieldset key={g}>
          <legend className="font-medium">{g}</legend>
          {runs
            .filter((r) => r.group === g)
            .map((r) => (
              <label key={r.id} className="mr-4 inline-flex items-center gap-1">
                <input
                  type="checkbox"
                  checked={chosen.includes(r.id)}
                  onChange={(e) => setChosen(e.target.checked ? [...chosen, r.id] : chosen.filter((c) => c !== r.id))}
                />
                {r.name} · {r.system} · {r.model} <span className="text-zinc-500">({r.traces})</span>
              </label>
            ))}
        </fieldset>
      ))}
      <button
        type="button"
        disabled={chosen.length < 2}
        onClick={go}
        className="rounded bg-zinc-900 px-3 py-1.5 text-white disabled:opacity-40"
      >
        Compare {chosen.length} runs
      </button>
    </div>
  );
}

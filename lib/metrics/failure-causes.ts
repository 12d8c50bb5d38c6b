/**
 * Failure causes per variant: labelled traces per cause and (system × model) cell of one dataset, as chart bars
 * and as a CSV table. Causes come in the preset taxonomy's order, then the others alphabetically. Pure.
 */
import { PRESET_LABELS } from "./failure-taxonomy";
import { groupedBars, orderSystems, type GroupedBars } from "./chart-series";

export interface CauseCount {
  group: string;
  system: string;
  model: string;
  label: string;
  traces: number;
}

const causeOrder = (labels: string[]) =>
  [...new Set(labels)].sort((a, b) => {
    const ia = PRESET_LABELS.indexOf(a);
    const ib = PRESET_LABELS.indexOf(b);
    return ia >= 0 && ib >= 0 ? ia - ib : ia >= 0 ? -1 : ib >= 0 ? 1 : a.localeCompare(b);
  });

/** One bar per system × model: the system's colour, a shade per model (models in the same order in every system). */
export function causeBars(rows: CauseCount[]): GroupedBars {
  const systems = orderSystems(rows.map((r) => r.system));
  const models = [...new Set(rows.map((r) => r.model))].sort();
  const series = systems.flatMap((s) =>
    models.filter((m) => rows.some((r) => r.system === s && r.model === m)).map((m) => `${s} · ${m}`),
  );
  return {
    ...groupedBars(
      rows.map((r) => ({ category: r.label, series: `${r.system} · ${r.model}`, value: r.traces })),
      { categories: causeOrder(rows.map((r) => r.label)), series },
    ),
    info: Object.fromEntries(
      rows.map((r) => [`${r.system} · ${r.model}`, { system: r.system, shade: models.indexOf(r.model) }]),
    ),
  };
}

export function causesTable(rows: CauseCount[]): { columns: string[]; rows: (string | number)[][] } {
  const causes = causeOrder(rows.map((r) => r.label));
  const rank = (l: string) => causes.indexOf(l);
  return {
    columns: ["dataset", "system", "model", "cause", "labelled_traces"],
    rows: [...rows]
      .sort(
        (a, b) => a.group.localeCompare(b.group) || rank(a.label) - rank(b.label) || a.system.localeCompare(b.system),
      )
      .map((r) => [r.group, r.system, r.model, r.label, r.traces]),
  };
}

/**
 * Chart preparers (pure): charts in components/charts only draw what these decide — which categories and
 * series, in what order, and where a value is missing (null, drawn as a gap, never as zero).
 */

export interface BarItem {
  category: string;
  series: string;
  value: number | null;
  /** A 95% interval around the value, drawn as an error bar. */
  low?: number | null;
  high?: number | null;
}

export interface GroupedBars {
  series: string[];
  /** One row per category: `{ category, [series]: value, [`${series}:err`]: [below, above] }`; a missing value is null (a gap). */
  data: Record<string, string | number | null | [number, number]>[];
}

export function groupedBars(items: BarItem[], order?: { categories?: string[]; series?: string[] }): GroupedBars {
  const categories =
    order?.categories ??
    [...new Set(items.map((i) => i.category))].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const series = order?.series ?? [...new Set(items.map((i) => i.series))].sort();
  const data = categories.map((category) => {
    const row: Record<string, string | number | null | [number, number]> = { category };
    for (const s of series) {
      const item = items.find((i) => i.category === category && i.series === s);
      row[s] = item?.value ?? null;
      if (item && item.value !== null && item.low != null && item.high != null)
        row[`${s}:err`] = [item.value - item.low, item.high - item.value];
    }
    return row;
  });
  return { series, data };
}

/** The systems of the Sophrosyne study first, in the paper's order; others after, alphabetically. */
export function orderSystems(systems: string[]): string[] {
  const known = ["No Directives", "Sophrosyne", "Sophrosyne-Oracle"];
  return [...new Set(systems)].sort((a, b) => {
    const ia = known.indexOf(a);
    const ib = known.indexOf(b);
    return (ia < 0 ? 99 : ia) - (ib < 0 ? 99 : ib) || a.localeCompare(b);
  });
}

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
  /** How many units (questions, traces) the value is over, shown in the tooltip. */
  n?: number | null;
  /** What the tooltip says where the value has no interval (stats.ts `barBoundsOf`). */
  note?: string | null;
}

/** What a series stands for, so every chart draws a system the same way (components/charts/palette.ts). */
export interface SeriesInfo {
  /** The system whose colour and pattern the series takes; null: a neutral colour. */
  system: string | null;
  /** A second part of a stacked bar (output tokens, directive overhead): drawn lighter, named in the legend. */
  part?: string;
  /** Bars with the same stack key are stacked. */
  stack?: string;
  /** The model's rank among the chart's models, drawn as a shade of the system's colour. */
  shade?: number;
}

export interface GroupedBars {
  series: string[];
  /** One row per category: `{ category, [series]: value, [`${series}:err`]: [below, above] }`; a missing value is null (a gap). */
  data: Record<string, string | number | null | [number, number]>[];
  /** Per series: its system, part, stack and shade. A series without an entry is neutral. */
  info?: Record<string, SeriesInfo>;
  /** Per category, per series: the value's interval and n, for tooltips. */
  details?: Record<string, Record<string, BarDetail>>;
}

/** A bar's interval, n and note, for its tooltip. */
export interface BarDetail {
  low: number | null;
  high: number | null;
  n: number | null;
  note?: string | null;
}

export function groupedBars(items: BarItem[], order?: { categories?: string[]; series?: string[] }): GroupedBars {
  const categories =
    order?.categories ??
    [...new Set(items.map((i) => i.category))].sort((a, b) => a.localeCompare(b, undefined, { numeric: true }));
  const series = order?.series ?? [...new Set(items.map((i) => i.series))].sort();
  const details: NonNullable<GroupedBars["details"]> = {};
  const data = categories.map((category) => {
    const row: Record<string, string | number | null | [number, number]> = { category };
    for (const s of series) {
      const item = items.find((i) => i.category === category && i.series === s);
      row[s] = item?.value ?? null;
      if (item && item.value !== null && item.low != null && item.high != null)
        row[`${s}:err`] = [item.value - item.low, item.high - item.value];
      if (item && item.value !== null && (item.low != null || item.n != null || item.note))
        (details[category] ??= {})[s] = {
          low: item.low ?? null,
          high: item.high ?? null,
          n: item.n ?? null,
          ...(item.note ? { note: item.note } : {}),
        };
    }
    return row;
  });
  return { series, data, ...(Object.keys(details).length ? { details } : {}) };
}

/**
 * Round axis ticks from 0 (or a negative minimum) past the maximum: steps of 1, 2, 2.5 or 5 × 10^k, about five of
 * them; whole numbers only for counts. For percentages pass shares (0.25 = 25 %): steps are round in percent.
 */
export function niceTicks(min: number, max: number, opts: { integer?: boolean; percent?: boolean } = {}): number[] {
  const scale = opts.percent ? 100 : 1;
  const lo = Math.min(0, min) * scale;
  // Nothing above zero: an axis to 10 % (or 1), so a row of zeros reads as zeros, not as 0.2 % steps.
  const hi = Math.max(0, max) * scale || (lo < 0 ? 0 : opts.percent ? 10 : 1);
  const span = hi - lo;
  const raw = span / 5;
  const pow = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 2.5, 5, 10].map((m) => m * pow).find((c) => c >= raw) ?? 10 * pow;
  if (opts.integer) step = Math.max(1, Math.ceil(step));
  const first = Math.floor(lo / step) * step;
  const ticks: number[] = [];
  for (let t = first; t < hi + step - 1e-9; t += step) {
    ticks.push(Math.round(t * 1e6) / 1e6 / scale);
    if (t >= hi - 1e-9) break;
  }
  return ticks;
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

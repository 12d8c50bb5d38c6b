"use client";

import { useId } from "react";
import {
  Bar,
  BarChart,
  CartesianGrid,
  ErrorBar,
  Rectangle,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from "recharts";
import { niceTicks, type GroupedBars } from "@/lib/metrics/chart-series";
import type { Formats } from "@/components/ui/format";
import { useFormats } from "@/components/ui/locale";
import { WrappedTick, wrapLabel } from "./axis-tick";
import { ChartFrame } from "./chart-frame";
import type { LegendItem } from "./figure-export";
import { fillOf, patternMarkup, seriesStyle, type SeriesStyle } from "./palette";

/** `number`: any real number (a custom score's mean), ticks not forced to whole numbers. */
export type ValueFormat = "percent" | "count" | "number" | "tokens" | "usd";

const formatters = (f: Formats): Record<ValueFormat, (v: number) => string> => ({
  percent: (v) => f.percent(v, 0),
  count: (v) => f.count(v),
  number: (v) => f.count(v),
  tokens: (v) => f.tokens(v),
  usd: (v) => f.usd(v, Math.abs(v) < 1 ? 3 : 2),
});
// Tooltips: the exact value.
const exact = (f: Formats): Record<ValueFormat, (v: number) => string> => ({
  percent: (v) => f.percent(v, 1),
  count: (v) => f.count(v),
  number: (v) => f.count(v),
  tokens: (v) => f.count(v),
  usd: (v) => f.usd(v, 4),
});

function BarTooltip({
  active,
  label,
  bars,
  styles,
  show,
}: {
  active?: boolean;
  label?: string | number;
  bars: GroupedBars;
  styles: Record<string, SeriesStyle>;
  show: (v: number) => string;
}) {
  if (!active || label === undefined) return null;
  const row = bars.data.find((d) => d.category === label);
  if (!row) return null;
  return (
    <div className="max-w-sm rounded border border-zinc-300 bg-white p-2 text-xs shadow">
      <div className="mb-1 font-semibold">{label}</div>
      {bars.series.map((s) => {
        const v = row[s];
        const d = bars.details?.[String(label)]?.[s];
        return (
          <div key={s} className="flex flex-wrap items-baseline gap-x-1.5">
            <span className="inline-block h-2.5 w-2.5" style={{ background: styles[s].fill }} />
            <span>{s}:</span>
            <strong className="tabular-nums">{typeof v === "number" ? show(v) : "no value"}</strong>
            {d && d.low !== null && d.high !== null && (
              <span className="whitespace-nowrap tabular-nums text-zinc-600">
                [{show(d.low)}, {show(d.high)}]
              </span>
            )}
            {d && d.low === null && d.note && <span className="text-zinc-600">({d.note})</span>}
            {d && d.n !== null && <span className="whitespace-nowrap text-zinc-600">n = {d.n}</span>}
          </div>
        );
      })}
    </div>
  );
}

/**
 * Bars per category and series, one quantity on one axis: each series in its system's colour and pattern (palette.ts),
 * stacked where the series say so, with 95 % intervals as error bars, round ticks, axis titles, wrapped labels, one
 * legend, and tooltips with the exact value, its interval and n.
 */
export function GroupedBarChart({
  title,
  help,
  fileName,
  bars,
  format = "count",
  height = 260,
  testId,
  source,
  xLabel,
  yLabel,
  system,
}: {
  title: string;
  help?: string;
  fileName: string;
  bars: GroupedBars;
  format?: ValueFormat;
  height?: number;
  testId?: string;
  source?: string;
  xLabel: string;
  yLabel: string;
  /** The system of series that carry no system of their own (a run's charts). */
  system?: string | null;
}) {
  const formats = useFormats();
  const f0 = formatters(formats)[format];
  const show = exact(formats)[format];
  const prefix = `p${useId().replace(/[^\w-]/g, "")}`;
  const styles = Object.fromEntries(bars.series.map((s) => [s, seriesStyle(bars.info?.[s], system)]));
  const stacked = bars.series.some((s) => bars.info?.[s]?.stack);
  // Axis range: the values (stacked: their sums) and their intervals.
  const values = bars.data.flatMap((row) => {
    if (stacked) {
      const sums = new Map<string, number>();
      for (const s of bars.series) {
        const v = row[s];
        if (typeof v === "number")
          sums.set(bars.info?.[s]?.stack ?? s, (sums.get(bars.info?.[s]?.stack ?? s) ?? 0) + v);
      }
      return [...sums.values()];
    }
    return bars.series.flatMap((s) => {
      const v = row[s];
      const err = row[`${s}:err`] as [number, number] | undefined;
      return typeof v === "number" ? [v, ...(err ? [v - err[0], v + err[1]] : [])] : [];
    });
  });
  const ticks = niceTicks(Math.min(0, ...values), Math.max(0, ...values), {
    integer: format === "count" || format === "tokens",
    percent: format === "percent",
  });
  // Token axes: compact throughout (5K, 10K), not 5,000 beside 10K; percent axes with a decimal when a step is
  // under one percentage point (2.5 %, not 2 % and 3 %).
  const step = ticks.length > 1 ? ticks[1] - ticks[0] : 1;
  const f =
    format === "tokens" && ticks[ticks.length - 1] >= 1e4
      ? formats.compact
      : format === "percent" && Math.abs(step * 100 - Math.round(step * 100)) > 1e-9
        ? (v: number) => formats.percent(v, 1)
        : f0;
  const lines = Math.max(1, ...bars.data.map((d) => wrapLabel(String(d.category)).length));
  // One legend entry per system (a stacked bar's lighter part is named once), or per series when they are not systems.
  const bySystem = bars.series.every((s) => bars.info?.[s]?.system) && stacked;
  const legend: LegendItem[] | undefined = bySystem
    ? [
        ...bars.series
          .filter((s) => !bars.info?.[s]?.part)
          .map((s) => ({ label: bars.info![s].system!, style: seriesStyle({ system: bars.info![s].system }) })),
        ...[...new Set(bars.series.map((s) => bars.info?.[s]?.part).filter((p): p is string => Boolean(p)))].map(
          (part) => ({ label: `lighter: ${part}`, style: seriesStyle({ system: null, part }) }),
        ),
      ]
    : bars.series.length > 1 || system
      ? bars.series.map((s) => ({ label: bars.series.length > 1 ? s : (system ?? s), style: styles[s] }))
      : undefined;
  const empty = bars.data.every((d) => bars.series.every((s) => d[s] === null || d[s] === undefined));
  return (
    <ChartFrame
      title={title}
      help={help}
      fileName={fileName}
      testId={testId}
      source={source}
      legend={empty ? undefined : legend}
      table={{
        columns: [xLabel, ...bars.series],
        rows: bars.data.map((row) => [
          String(row.category),
          ...bars.series.map((se) => (typeof row[se] === "number" ? show(row[se] as number) : null)),
        ]),
      }}
    >
      {empty ? (
        <p className="py-8 text-center text-sm text-zinc-500">
          No values to draw
          {format === "usd"
            ? ": no price is known for these models (METRON_PRICES adds prices; simulated models have none)"
            : ""}
          .
        </p>
      ) : (
        <ResponsiveContainer width="100%" height={height + 12 * lines}>
          <BarChart data={bars.data} margin={{ top: 8, right: 8, bottom: 4, left: 12 }}>
            <defs
              dangerouslySetInnerHTML={{
                __html: bars.series.map((s, i) => patternMarkup(`${prefix}-${i}`, styles[s])).join(""),
              }}
            />
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis
              dataKey="category"
              interval={0}
              tick={<WrappedTick />}
              height={14 + 11 * lines + 16}
              label={{ value: xLabel, position: "insideBottom", offset: 0, fontSize: 11, fill: "#3f3f46" }}
            />
            <YAxis
              tickFormatter={f}
              tick={{ fontSize: 11 }}
              width={60}
              ticks={ticks}
              domain={[ticks[0], ticks[ticks.length - 1]]}
              allowDecimals={format === "percent" || format === "usd"}
              label={{
                value: yLabel,
                angle: -90,
                position: "insideLeft",
                offset: -4,
                fontSize: 11,
                fill: "#3f3f46",
                style: { textAnchor: "middle" },
              }}
            />
            {ticks[0] < 0 && <ReferenceLine y={0} stroke="#71717a" />}
            <Tooltip content={<BarTooltip bars={bars} styles={styles} show={show} />} />
            {bars.series.map((s, i) => (
              <Bar
                key={s}
                dataKey={s}
                name={s}
                stackId={bars.info?.[s]?.stack}
                fill={fillOf(`${prefix}-${i}`, styles[s])}
                stroke={styles[s].color}
                strokeWidth={styles[s].pattern === "solid" ? 0 : 0.75}
                isAnimationActive={false}
                maxBarSize={72}
                shape={(props: object) => (
                  <g
                    data-system={styles[s].system ?? undefined}
                    data-color={styles[s].color}
                    data-series={s}
                    data-base={styles[s].fill === styles[s].color || undefined}
                  >
                    <Rectangle {...props} />
                  </g>
                )}
              >
                {!stacked && bars.data.some((d) => d[`${s}:err`]) && (
                  <ErrorBar dataKey={`${s}:err`} width={4} stroke="#18181b" isAnimationActive={false} />
                )}
              </Bar>
            ))}
          </BarChart>
        </ResponsiveContainer>
      )}
    </ChartFrame>
  );
}

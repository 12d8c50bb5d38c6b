"use client";

import { Bar, BarChart, CartesianGrid, ErrorBar, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import type { GroupedBars } from "@/lib/metrics/chart-series";
import { ChartFrame } from "./chart-frame";
import type { Formats } from "@/components/ui/format";
import { useFormats } from "@/components/ui/locale";

const COLORS = ["#71717a", "#2563eb", "#059669", "#d97706", "#7c3aed", "#dc2626", "#0891b2"];

export type ValueFormat = "percent" | "count" | "tokens" | "usd";

const formatters = (f: Formats): Record<ValueFormat, (v: number) => string> => ({
  percent: (v) => f.percent(v, 0),
  count: (v) => f.count(v),
  tokens: (v) => f.tokens(v),
  usd: (v) => f.usd(v, Math.abs(v) < 1 ? 3 : 2),
});

export function GroupedBarChart({
  title,
  help,
  fileName,
  bars,
  format = "count",
  height = 260,
  testId,
  source,
}: {
  title: string;
  help?: string;
  fileName: string;
  bars: GroupedBars;
  format?: ValueFormat;
  height?: number;
  testId?: string;
  source?: string;
}) {
  const fmt = formatters(useFormats());
  const f = fmt[format];
  return (
    <ChartFrame
      title={title}
      help={help}
      fileName={fileName}
      testId={testId}
      source={source}
      table={{
        columns: ["", ...bars.series],
        rows: bars.data.map((row) => [
          String(row.category),
          ...bars.series.map((se) => (typeof row[se] === "number" ? f(row[se] as number) : null)),
        ]),
      }}
    >
      {bars.data.every((d) => bars.series.every((s) => d[s] === null || d[s] === undefined)) ? (
        <p className="py-8 text-center text-sm text-zinc-500">
          No values to draw
          {format === "usd"
            ? ": no price is known for these models (METRON_PRICES adds prices; simulated models have none)"
            : ""}
          .
        </p>
      ) : (
        <ResponsiveContainer width="100%" height={height}>
          <BarChart data={bars.data} margin={{ top: 8, right: 8, bottom: 8, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" vertical={false} />
            <XAxis dataKey="category" tick={{ fontSize: 10 }} interval={0} />
            <YAxis
              tickFormatter={f}
              tick={{ fontSize: 11 }}
              width={56}
              allowDecimals={format === "percent" || format === "usd"}
            />
            <Tooltip formatter={(v) => (typeof v === "number" ? f(v) : String(v ?? "—"))} />
            <Legend wrapperStyle={{ fontSize: 12 }} />
            {bars.series.map((s, i) => (
              <Bar key={s} dataKey={s} fill={COLORS[i % COLORS.length]} isAnimationActive={false}>
                {bars.data.some((d) => d[`${s}:err`]) && (
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

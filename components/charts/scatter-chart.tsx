"use client";

import {
  CartesianGrid,
  ReferenceLine,
  ResponsiveContainer,
  Scatter,
  ScatterChart,
  Tooltip,
  XAxis,
  YAxis,
  ZAxis,
} from "recharts";
import { ChartFrame } from "./chart-frame";
import { seriesStyle } from "./palette";

export interface ScatterPoint {
  x: number;
  y: number;
  count: number;
  label: string;
}

/** Exploratory calls against gold count; point size is how many questions share the point; y = x is no over-exploration. */
export function ExplorationScatter({
  points,
  fileName,
  system,
}: {
  points: ScatterPoint[];
  fileName: string;
  system?: string | null;
}) {
  const max = Math.max(1, ...points.map((p) => Math.max(p.x, p.y)));
  const style = seriesStyle(undefined, system);
  return (
    <ChartFrame
      title="Exploratory calls against gold tables, per question"
      help="Above the line: more exploratory calls than gold tables. Size: number of questions."
      fileName={fileName}
      testId="chart-exploration"
      legend={system ? [{ label: system, style }] : undefined}
      table={{
        columns: ["gold tables", "exploratory calls", "questions"],
        rows: points.map((p) => [p.x, p.y, p.count]),
      }}
    >
      {points.length === 0 ? (
        <p className="py-8 text-center text-sm text-zinc-500">No question with known gold tables.</p>
      ) : (
        <ResponsiveContainer width="100%" height={260}>
          <ScatterChart margin={{ top: 8, right: 16, bottom: 16, left: 8 }}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis
              type="number"
              dataKey="x"
              name="gold tables"
              domain={[0, max]}
              allowDecimals={false}
              tick={{ fontSize: 11 }}
              label={{ value: "gold tables", position: "insideBottom", offset: -8, fontSize: 11 }}
            />
            <YAxis
              type="number"
              dataKey="y"
              name="exploratory calls"
              domain={[0, max]}
              allowDecimals={false}
              tick={{ fontSize: 11 }}
              label={{
                value: "exploratory calls",
                angle: -90,
                position: "insideLeft",
                fontSize: 11,
                fill: "#3f3f46",
                style: { textAnchor: "middle" },
              }}
            />
            <ZAxis type="number" dataKey="count" range={[30, 400]} name="questions" />
            <ReferenceLine
              segment={[
                { x: 0, y: 0 },
                { x: max, y: max },
              ]}
              stroke="#a1a1aa"
              strokeDasharray="4 4"
            />
            <Tooltip formatter={(v, n) => [String(v), String(n)]} cursor={{ strokeDasharray: "3 3" }} />
            <Scatter
              data={points}
              fill={style.color}
              fillOpacity={0.6}
              stroke={style.color}
              isAnimationActive={false}
              shape={(props: { cx?: number; cy?: number; size?: number }) => (
                <circle
                  cx={props.cx}
                  cy={props.cy}
                  r={Math.sqrt((props.size ?? 64) / Math.PI)}
                  fill={style.color}
                  fillOpacity={0.6}
                  stroke={style.color}
                  data-system={style.system ?? undefined}
                  data-color={style.color}
                />
              )}
            />
          </ScatterChart>
        </ResponsiveContainer>
      )}
    </ChartFrame>
  );
}

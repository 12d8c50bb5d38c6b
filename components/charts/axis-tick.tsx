"use client";

/** Splits a label into lines of at most `width` characters at spaces, underscores, dots or hyphens; at most `max` lines. */
export function wrapLabel(label: string, width = 14, max = 3): string[] {
  const words = label.split(/(?<=[\s_.\-/])/);
  const lines: string[] = [];
  let line = "";
  for (const w of words) {
    if (line && (line + w).trimEnd().length > width) {
      lines.push(line.trimEnd());
      line = "";
    }
    line += w;
    while (line.length > width + 4) {
      lines.push(line.slice(0, width));
      line = line.slice(width);
    }
  }
  if (line.trim()) lines.push(line.trimEnd());
  if (lines.length <= max) return lines;
  const kept = lines.slice(0, max);
  kept[max - 1] = `${kept[max - 1].slice(0, width - 1)}…`;
  return kept;
}

/** An x-axis label that wraps instead of overlapping its neighbours; the full label is its tooltip. */
export function WrappedTick(props: { x?: number; y?: number; payload?: { value: string | number }; width?: number }) {
  const label = String(props.payload?.value ?? "");
  const lines = wrapLabel(label);
  return (
    <g transform={`translate(${props.x ?? 0},${props.y ?? 0})`}>
      <title>{label}</title>
      <text textAnchor="middle" fontSize={10} fill="#3f3f46">
        {lines.map((l, i) => (
          <tspan key={i} x={0} dy={i === 0 ? 10 : 11}>
            {l}
          </tspan>
        ))}
      </text>
    </g>
  );
}

"use client";

import { useId, useRef, useState } from "react";
import { download, figureSvg, pngOf, type LegendItem } from "./figure-export";
import { patternMarkup } from "./palette";

/** A legend swatch: the same colour and pattern as the bars. */
export function Swatch({ item }: { item: LegendItem }) {
  const id = `sw${useId().replace(/[^\w-]/g, "")}`;
  return (
    <svg width="12" height="12" aria-hidden="true" className="shrink-0">
      <defs dangerouslySetInnerHTML={{ __html: patternMarkup(id, item.style) }} />
      <rect
        width="12"
        height="12"
        fill={item.style.pattern === "solid" ? item.style.fill : `url(#${id})`}
        stroke={item.style.color}
        data-system={item.style.system ?? undefined}
        data-color={item.style.color}
      />
    </svg>
  );
}

/**
 * A chart with a title, its definition, its legend (once), the numbers it draws as a table (its text alternative), and
 * downloads of the figure: SVG with its fonts embedded, PNG at 2× and 3×.
 */
export function ChartFrame({
  title,
  help,
  fileName,
  children,
  testId,
  source,
  table,
  legend,
}: {
  title: string;
  help?: string;
  fileName: string;
  children: React.ReactNode;
  testId?: string;
  source?: string;
  /** The numbers drawn, as a table: the chart's text alternative. */
  table?: { columns: string[]; rows: (string | number | null)[][] };
  legend?: LegendItem[];
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [busy, setBusy] = useState(false);
  const save = async (kind: "svg" | 2 | 3) => {
    setBusy(true);
    try {
      const figure = await figureSvg(ref.current, { title, legend, source });
      if (!figure) return;
      if (kind === "svg") return download(`${fileName}.svg`, new Blob([figure.svg], { type: "image/svg+xml" }));
      const png = await pngOf(figure, kind);
      if (png) download(`${fileName}@${kind}x.png`, png);
    } finally {
      setBusy(false);
    }
  };
  const button = "rounded border border-zinc-300 px-1.5 py-0.5 hover:bg-zinc-50 disabled:opacity-50";
  return (
    <figure className="chart-text rounded-lg border border-zinc-200 bg-white p-3" data-testid={testId}>
      <figcaption className="mb-2 flex items-start justify-between gap-2">
        <div className="min-w-0 flex-1">
          <div className="text-sm font-semibold">{title}</div>
          {help && <div className="text-xs text-zinc-500">{help}</div>}
          {source && (
            <div className="truncate text-[11px] text-zinc-500" title={source}>
              {source}
            </div>
          )}
        </div>
        <div className="flex shrink-0 gap-1 text-xs" role="group" aria-label={`Download ${title}`}>
          <button
            type="button"
            disabled={busy}
            onClick={() => void save("svg")}
            className={button}
            title="SVG, fonts embedded"
          >
            SVG
          </button>
          <button type="button" disabled={busy} onClick={() => void save(2)} className={button} title="PNG at 2×">
            PNG 2×
          </button>
          <button type="button" disabled={busy} onClick={() => void save(3)} className={button} title="PNG at 3×">
            PNG 3×
          </button>
        </div>
      </figcaption>
      <div ref={ref}>{children}</div>
      {legend && legend.length > 0 && (
        <ul className="mt-1 flex flex-wrap gap-x-4 gap-y-1 text-xs text-zinc-700" data-testid="chart-legend">
          {legend.map((item) => (
            <li key={item.label} className="flex items-center gap-1.5">
              <Swatch item={item} />
              {item.label}
            </li>
          ))}
        </ul>
      )}
      {table && (
        <details className="mt-1 text-xs">
          <summary className="cursor-pointer text-zinc-600">The numbers of this chart</summary>
          <table className="mt-1 tabular-nums">
            <thead>
              <tr>
                {table.columns.map((c) => (
                  <th key={c} scope="col" className="pr-3 text-left font-medium">
                    {c}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((r, i) => (
                <tr key={i}>
                  {r.map((v, j) => (
                    <td key={j} className="pr-3">
                      {v === null ? "—" : v}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </details>
      )}
    </figure>
  );
}

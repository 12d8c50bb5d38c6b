"use client";

import { useRef } from "react";

function download(name: string, blob: Blob) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

/** The drawn SVG, with the data it covers (`source`, e.g. the runs) written under it, so an exported figure says so. */
function svgOf(container: HTMLElement | null, source?: string): string | null {
  const svg = container?.querySelector("svg.recharts-surface") ?? container?.querySelector("svg");
  if (!svg) return null;
  const clone = svg.cloneNode(true) as SVGSVGElement;
  clone.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  if (source) {
    const ns = "http://www.w3.org/2000/svg";
    const height = Number(clone.getAttribute("height") ?? svg.getBoundingClientRect().height);
    const desc = document.createElementNS(ns, "desc");
    desc.textContent = source;
    clone.insertBefore(desc, clone.firstChild);
    const text = document.createElementNS(ns, "text");
    text.setAttribute("x", "4");
    text.setAttribute("y", String(height + 12));
    text.setAttribute("font-size", "9");
    text.setAttribute("fill", "#52525b");
    text.textContent = source.length > 220 ? `${source.slice(0, 217)}…` : source;
    clone.appendChild(text);
    clone.setAttribute("height", String(height + 18));
    const vb = clone.getAttribute("viewBox")?.split(/\s+/).map(Number);
    if (vb && vb.length === 4) clone.setAttribute("viewBox", `${vb[0]} ${vb[1]} ${vb[2]} ${vb[3] + 18}`);
  }
  clone.setAttribute("style", "background:#fff;font-family:system-ui,sans-serif");
  return new XMLSerializer().serializeToString(clone);
}

/** A chart with a title, its definition, and SVG / PNG downloads of what is drawn. */
export function ChartFrame({
  title,
  help,
  fileName,
  children,
  testId,
  source,
  table,
}: {
  title: string;
  help?: string;
  fileName: string;
  children: React.ReactNode;
  testId?: string;
  source?: string;
  /** The numbers drawn, as a table: the chart's text alternative. */
  table?: { columns: string[]; rows: (string | number | null)[][] };
}) {
  const ref = useRef<HTMLDivElement>(null);
  const saveSvg = () => {
    const svg = svgOf(ref.current, source);
    if (svg) download(`${fileName}.svg`, new Blob([svg], { type: "image/svg+xml" }));
  };
  const savePng = () => {
    const svg = svgOf(ref.current, source);
    const drawn = ref.current?.querySelector("svg")?.getBoundingClientRect();
    const box = drawn && { width: drawn.width, height: drawn.height + (source ? 18 : 0) };
    if (!svg || !box) return;
    const img = new Image();
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = box.width * 2;
      canvas.height = box.height * 2;
      const ctx = canvas.getContext("2d")!;
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.scale(2, 2);
      ctx.drawImage(img, 0, 0, box.width, box.height);
      canvas.toBlob((b) => b && download(`${fileName}.png`, b), "image/png");
    };
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`;
  };
  return (
    <figure className="rounded-lg border border-zinc-200 bg-white p-3" data-testid={testId}>
      <figcaption className="mb-2 flex items-start justify-between gap-2">
        <div>
          <div className="text-sm font-semibold">{title}</div>
          {help && <div className="text-xs text-zinc-500">{help}</div>}
          {source && (
            <div className="max-w-xl truncate text-[11px] text-zinc-500" title={source}>
              {source}
            </div>
          )}
        </div>
        <div className="flex shrink-0 gap-1 text-xs">
          <button
            type="button"
            onClick={saveSvg}
            className="rounded border border-zinc-300 px-1.5 py-0.5 hover:bg-zinc-50"
          >
            SVG
          </button>
          <button
            type="button"
            onClick={savePng}
            className="rounded border border-zinc-300 px-1.5 py-0.5 hover:bg-zinc-50"
          >
            PNG
          </button>
        </div>
      </figcaption>
      <div ref={ref}>{children}</div>
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

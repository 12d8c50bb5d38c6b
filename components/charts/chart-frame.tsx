"use client";

import { useRef } from "react";

function download(name: string, blob: Blob) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

function svgOf(container: HTMLElement | null): string | null {
  const svg = container?.querySelector("svg.recharts-surface") ?? container?.querySelector("svg");
  if (!svg) return null;
  const clone = svg.cloneNode(true) as SVGSVGElement;
  clone.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  clone.setAttribute("style", "background:#fff;font-family:system-ui,sans-serif");
  return new XMLSerializer().serializeToString(clone);
}

/** A chart with a title, its definition, and SVG / PNG downloads of what is drawn. */
export function ChartFrame({ title, help, fileName, children, testId }: { title: string; help?: string; fileName: string; children: React.ReactNode; testId?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const saveSvg = () => {
    const svg = svgOf(ref.current);
    if (svg) download(`${fileName}.svg`, new Blob([svg], { type: "image/svg+xml" }));
  };
  const savePng = () => {
    const svg = svgOf(ref.current);
    const box = ref.current?.querySelector("svg")?.getBoundingClientRect();
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
        </div>
        <div className="flex shrink-0 gap-1 text-xs">
          <button type="button" onClick={saveSvg} className="rounded border border-zinc-300 px-1.5 py-0.5 hover:bg-zinc-50">SVG</button>
          <button type="button" onClick={savePng} className="rounded border border-zinc-300 px-1.5 py-0.5 hover:bg-zinc-50">PNG</button>
        </div>
      </figcaption>
      <div ref={ref}>{children}</div>
    </figure>
  );
}

/**
 * A drawn chart as a self-contained figure: the SVG with its fonts embedded (Inter, as WOFF2 data), its legend and the
 * data it covers drawn inside it, so an exported file looks the same anywhere; and PNG renderings of it at 2× and 3×.
 * Browser-only.
 */
import { patternMarkup, type SeriesStyle } from "./palette";

export interface LegendItem {
  label: string;
  style: SeriesStyle;
}

const SVG_NS = "http://www.w3.org/2000/svg";
const FONT = `"Inter", ui-sans-serif, system-ui, sans-serif`;
let fontCss: Promise<string> | null = null;

async function dataUrl(url: string): Promise<string> {
  const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:font/woff2;base64,${btoa(binary)}`;
}

/** The @font-face rules of the charts' typeface with the font files inlined (fetched once per page). */
function embeddedFonts(): Promise<string> {
  fontCss ??= Promise.all(
    [400, 600].map(
      async (w) =>
        `@font-face{font-family:"Inter";font-weight:${w};src:url(${await dataUrl(`/fonts/inter-${w}.woff2`)}) format("woff2");}`,
    ),
  )
    .then((rules) => rules.join(""))
    .catch(() => "");
  return fontCss;
}

function el(name: string, attrs: Record<string, string | number>, text?: string): Element {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The figure as SVG text: the chart, then its legend in rows, then the data it covers. */
export async function figureSvg(
  container: HTMLElement | null,
  opts: { title: string; legend?: LegendItem[]; source?: string },
): Promise<{ svg: string; width: number; height: number } | null> {
  const drawn = container?.querySelector("svg.recharts-surface") ?? container?.querySelector("svg");
  if (!drawn) return null;
  const clone = drawn.cloneNode(true) as SVGSVGElement;
  const box = drawn.getBoundingClientRect();
  const width = Math.round(Number(drawn.getAttribute("width")) || box.width);
  let height = Math.round(Number(drawn.getAttribute("height")) || box.height);
  clone.setAttribute("xmlns", SVG_NS);
  clone.insertBefore(el("title", {}, opts.title), clone.firstChild);
  if (opts.source) clone.insertBefore(el("desc", {}, opts.source), clone.firstChild?.nextSibling ?? null);
  const style = el("style", {}, `${await embeddedFonts()} text{font-family:${FONT};}`);
  clone.insertBefore(style, clone.firstChild);
  // The legend, wrapped into rows across the figure's width.
  const legend = opts.legend ?? [];
  if (legend.length) {
    const defs = el("defs", {});
    const g = el("g", { "font-size": 11, fill: "#18181b" });
    let x = 8;
    let y = height + 6;
    legend.forEach((item, i) => {
      const w = 18 + item.label.length * 6.2 + 14;
      if (x + w > width && x > 8) {
        x = 8;
        y += 18;
      }
      const id = `legend-${i}`;
      defs.insertAdjacentHTML("beforeend", patternMarkup(id, item.style));
      g.appendChild(
        el("rect", {
          x,
          y,
          width: 12,
          height: 12,
          fill: item.style.pattern === "solid" ? item.style.fill : `url(#${id})`,
          stroke: item.style.color,
        }),
      );
      g.appendChild(el("text", { x: x + 17, y: y + 10 }, item.label));
      x += w;
    });
    clone.appendChild(defs);
    clone.appendChild(g);
    height = y + 18;
  }
  if (opts.source) {
    const text = opts.source.length > 220 ? `${opts.source.slice(0, 217)}…` : opts.source;
    clone.appendChild(el("text", { x: 4, y: height + 10, "font-size": 9, fill: "#52525b" }, text));
    height += 16;
  }
  clone.setAttribute("width", String(width));
  clone.setAttribute("height", String(height));
  clone.setAttribute("viewBox", `0 0 ${width} ${height}`);
  clone.setAttribute("style", `background:#fff;font-family:${FONT}`);
  return { svg: new XMLSerializer().serializeToString(clone), width, height };
}

export function download(name: string, blob: Blob) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

/** The figure rendered to PNG at `scale` × its size on screen (2 for slides, 3 for print). */
export function pngOf(figure: { svg: string; width: number; height: number }, scale: number): Promise<Blob | null> {
  return new Promise((resolve) => {
    const img = new Image();
    img.onload = () => {
      const canvas = document.createElement("canvas");
      canvas.width = figure.width * scale;
      canvas.height = figure.height * scale;
      const ctx = canvas.getContext("2d")!;
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      ctx.scale(scale, scale);
      ctx.drawImage(img, 0, 0, figure.width, figure.height);
      canvas.toBlob((b) => resolve(b), "image/png");
    };
    img.onerror = () => resolve(null);
    img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(figure.svg)}`;
  });
}

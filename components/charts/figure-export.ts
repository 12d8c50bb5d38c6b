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
const FALLBACK = "ui-sans-serif, system-ui, sans-serif";
/** The family the page loads the charts' typeface under (next/font names it; app/chart-font.ts), first name only. */
function pageFamily(): string | null {
  if (typeof document === "undefined") return null;
  const value = getComputedStyle(document.documentElement).getPropertyValue("--font-chart").trim();
  const first = value
    .split(",")[0]
    ?.trim()
    .replace(/^['"]|['"]$/g, "");
  return first || null;
}
/** The figure's font stack: the file's own "Inter" (embedded), the page's copy of it (for measuring), then the system. */
const fontStack = () => {
  const family = pageFamily();
  return `"Inter", ${family ? `"${family}", ` : ""}${FALLBACK}`;
};
let fontCss: Promise<string> | null = null;

async function dataUrl(url: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return `data:font/woff2;base64,${btoa(binary)}`;
}

/** The page's @font-face rules of that family: each weight and the URL of its file. */
function pageFaces(family: string): { weight: string; url: string }[] {
  const faces: { weight: string; url: string }[] = [];
  for (const sheet of Array.from(document.styleSheets)) {
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      continue; // a style sheet of another origin
    }
    for (const rule of Array.from(rules)) {
      if (!(rule instanceof CSSFontFaceRule)) continue;
      const name = rule.style
        .getPropertyValue("font-family")
        .trim()
        .replace(/^['"]|['"]$/g, "");
      const url = /url\(\s*['"]?([^'")]+)['"]?\s*\)/.exec(rule.style.getPropertyValue("src"))?.[1];
      // a relative url() is relative to its style sheet, not to the page
      if (name === family && url)
        faces.push({
          weight: rule.style.getPropertyValue("font-weight") || "400",
          url: new URL(url, sheet.href ?? document.baseURI).href,
        });
    }
  }
  return faces;
}

/**
 * The @font-face rules of the charts' typeface with the font files inlined under the family "Inter" (fetched once per
 * page), so the exported file needs no network and no installed font. Empty when the page has not loaded the face.
 */
function embeddedFonts(): Promise<string> {
  const family = pageFamily();
  fontCss ??= Promise.all(
    (family ? pageFaces(family) : []).map(
      async ({ weight, url }) =>
        `@font-face{font-family:"Inter";font-weight:${weight};src:url(${await dataUrl(url)}) format("woff2");}`,
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

/** Text widths in the figure's font, measured (a canvas), for wrapping; an estimate where canvas is missing. */
function measurer(sizePx: number): (text: string) => number {
  const ctx = typeof document !== "undefined" ? document.createElement("canvas").getContext("2d") : null;
  if (ctx) ctx.font = `${sizePx}px ${fontStack()}`;
  return (text) => (ctx ? ctx.measureText(text).width : text.length * sizePx * 0.6);
}

/** Words wrapped into lines no wider than `width` (a word longer than a line is cut at characters). */
export function wrapText(text: string, width: number, measure: (t: string) => number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    if (measure(candidate) <= width) {
      line = candidate;
      continue;
    }
    if (line) lines.push(line);
    line = word;
    while (measure(line) > width && line.length > 1) {
      let cut = line.length - 1;
      while (cut > 1 && measure(line.slice(0, cut)) > width) cut--;
      lines.push(line.slice(0, cut));
      line = line.slice(cut);
    }
  }
  if (line) lines.push(line);
  return lines;
}

/** Room around the drawn chart: its outermost tick labels (the top one, centred on its tick) are not cut off. */
const PAD = 12;
const SOURCE_MAX_LINES = 12;

/**
 * The figure as SVG text: the chart (inside a margin), then its legend in rows, then the data it covers, wrapped to the
 * figure's width — nothing is drawn past its edges (issue 30: the source line ran off the right edge, the top tick label
 * was cut).
 */
export async function figureSvg(
  container: HTMLElement | null,
  opts: { title: string; legend?: LegendItem[]; source?: string },
): Promise<{ svg: string; width: number; height: number } | null> {
  const drawn = container?.querySelector("svg.recharts-surface") ?? container?.querySelector("svg");
  if (!drawn) return null;
  const clone = drawn.cloneNode(true) as SVGSVGElement;
  const box = drawn.getBoundingClientRect();
  const chartWidth = Math.round(Number(drawn.getAttribute("width")) || box.width);
  const chartHeight = Math.round(Number(drawn.getAttribute("height")) || box.height);
  const width = chartWidth + 2 * PAD;
  const inner = width - 2 * PAD;
  // The chart's own drawing, moved inside the margin.
  const chart = el("g", { transform: `translate(${PAD},${PAD})` });
  while (clone.firstChild) chart.appendChild(clone.firstChild);
  clone.appendChild(chart);
  let height = chartHeight + 2 * PAD;
  clone.setAttribute("xmlns", SVG_NS);
  const title = el("title", {}, opts.title);
  clone.insertBefore(title, chart);
  if (opts.source) clone.insertBefore(el("desc", {}, opts.source), chart);
  const style = el("style", {}, `${await embeddedFonts()} text{font-family:${fontStack()};}`);
  clone.insertBefore(style, title);
  // The legend, wrapped into rows across the figure's width.
  const legend = opts.legend ?? [];
  if (legend.length) {
    const measure11 = measurer(11);
    const defs = el("defs", {});
    const g = el("g", { "font-size": 11, fill: "#18181b" });
    let x = PAD;
    let y = height - PAD + 6;
    legend.forEach((item, i) => {
      const w = 17 + Math.ceil(measure11(item.label)) + 14;
      if (x + w > PAD + inner && x > PAD) {
        x = PAD;
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
    height = y + 18 + PAD;
  }
  if (opts.source) {
    const lines = wrapText(opts.source, inner, measurer(9));
    const shown =
      lines.length > SOURCE_MAX_LINES
        ? [...lines.slice(0, SOURCE_MAX_LINES - 1), `… and more (the full list is in the figure's description)`]
        : lines;
    const g = el("g", { "font-size": 9, fill: "#52525b", "data-role": "source" });
    let y = height - PAD + 10;
    for (const line of shown) {
      g.appendChild(el("text", { x: PAD, y }, line));
      y += 12;
    }
    clone.appendChild(g);
    height = y - 12 + 4 + PAD;
  }
  clone.setAttribute("width", String(width));
  clone.setAttribute("height", String(height));
  clone.setAttribute("viewBox", `0 0 ${width} ${height}`);
  clone.setAttribute("style", `background:#fff;font-family:${fontStack()}`);
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

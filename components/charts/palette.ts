/**
 * One visual language for systems: every chart, legend and chip draws a system in the same colour (Okabe–Ito, safe
 * for colour-blind readers) with the same pattern as a second cue. Models are shades of their system's colour; the
 * second part of a stacked bar (output tokens, directive overhead) is a lighter tint. Pure.
 */
import type { SeriesInfo } from "@/lib/metrics/chart-series";

export type Pattern = "solid" | "stripes" | "dots" | "crosshatch" | "hstripes" | "vstripes";
export interface SystemStyle {
  color: string;
  pattern: Pattern;
}

const KNOWN: Record<string, SystemStyle> = {
  "No Directives": { color: "#E69F00", pattern: "solid" },
  Sophrosyne: { color: "#0072B2", pattern: "stripes" },
  "Sophrosyne-Oracle": { color: "#009E73", pattern: "dots" },
};
const OTHER_COLORS = ["#CC79A7", "#D55E00", "#56B4E9", "#332288", "#882255", "#666666"];
const OTHER_PATTERNS: Pattern[] = ["crosshatch", "hstripes", "vstripes", "solid"];
export const NEUTRAL: SystemStyle = { color: "#52525b", pattern: "solid" };

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** A system's colour and pattern: fixed for the Sophrosyne systems, stable (hashed from the name) for any other. */
export function systemStyle(system: string | null | undefined): SystemStyle {
  if (!system) return NEUTRAL;
  const known = KNOWN[system];
  if (known) return known;
  const h = hash(system);
  return { color: OTHER_COLORS[h % OTHER_COLORS.length], pattern: OTHER_PATTERNS[(h >>> 8) % OTHER_PATTERNS.length] };
}

/** `color` mixed with white: 0 is the colour, 1 is white. */
export function tint(color: string, amount: number): string {
  const n = Number.parseInt(color.slice(1), 16);
  const mix = (c: number) => Math.round(c + (255 - c) * amount);
  const [r, g, b] = [mix(n >> 16), mix((n >> 8) & 255), mix(n & 255)];
  return `#${((r << 16) | (g << 8) | b).toString(16).padStart(6, "0")}`;
}

export interface SeriesStyle extends SystemStyle {
  system: string | null;
  /** The colour drawn: the system's, tinted for a second part or a later model. */
  fill: string;
}

export function seriesStyle(info: SeriesInfo | undefined, fallbackSystem?: string | null): SeriesStyle {
  const system = info ? info.system : (fallbackSystem ?? null);
  const base = systemStyle(system);
  const amount = info?.part ? 0.5 : info?.shade ? Math.min(0.6, 0.3 * info.shade) : 0;
  return { ...base, system, fill: amount ? tint(base.color, amount) : base.color };
}

const MARKS: Record<Exclude<Pattern, "solid">, { transform?: string; marks: string }> = {
  stripes: { transform: "rotate(45)", marks: '<line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="2" />' },
  dots: { marks: '<circle cx="3" cy="3" r="1.3" fill="#fff" />' },
  crosshatch: {
    transform: "rotate(45)",
    marks:
      '<line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="1.2" /><line x1="0" y1="0" x2="6" y2="0" stroke="#fff" stroke-width="1.2" />',
  },
  hstripes: { marks: '<line x1="0" y1="0" x2="6" y2="0" stroke="#fff" stroke-width="2" />' },
  vstripes: { marks: '<line x1="0" y1="0" x2="0" y2="6" stroke="#fff" stroke-width="2" />' },
};

/** The SVG `<pattern>` of a style (empty for a solid one), shared by the screen, the legend and exports. */
export function patternMarkup(id: string, style: SeriesStyle): string {
  if (style.pattern === "solid") return "";
  const m = MARKS[style.pattern];
  return `<pattern id="${id}" width="6" height="6" patternUnits="userSpaceOnUse"${m.transform ? ` patternTransform="${m.transform}"` : ""}><rect width="6" height="6" fill="${style.fill}" /><g opacity="0.65">${m.marks}</g></pattern>`;
}

/** What a bar is filled with: the colour, or its pattern. */
export function fillOf(id: string, style: SeriesStyle): string {
  return style.pattern === "solid" ? style.fill : `url(#${id})`;
}

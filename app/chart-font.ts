import localFont from "next/font/local";

/**
 * The charts' typeface (Inter, SIL Open Font License, from @fontsource/inter), built into the page's static assets by
 * next/font (hashed, immutable, preloaded) and exposed as the CSS variable `--font-chart`. Exported SVG figures embed
 * the same files (components/charts/figure-export.ts reads them from this @font-face).
 */
export const chartFont = localFont({
  src: [
    { path: "../node_modules/@fontsource/inter/files/inter-latin-400-normal.woff2", weight: "400", style: "normal" },
    { path: "../node_modules/@fontsource/inter/files/inter-latin-600-normal.woff2", weight: "600", style: "normal" },
  ],
  variable: "--font-chart",
  display: "swap",
  preload: false,
  fallback: ["ui-sans-serif", "system-ui", "sans-serif"],
});

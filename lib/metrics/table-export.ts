/**
 * Summary tables for a paper: LaTeX (booktabs) and Markdown from one description, with estimates and their 95 %
 * intervals, the best value of each column in bold, n in the caption. Numbers are plain (no locale, no grouping
 * separators): percentages to one decimal, the unit in the column header. Pure.
 */

/** `points`: a difference of two percentages, in percentage points (signed), never printed as "%". */
export type ColumnKind = "text" | "percent" | "points" | "count" | "usd" | "p";

export interface ExportColumn {
  label: string;
  kind: ColumnKind;
  /** Which value is best and set in bold: the highest (accuracy) or the lowest (over-exploration, cost). */
  best?: "max" | "min";
  /**
   * A total over a cell's questions (tokens, cost, a count of traces): comparable only between rows of the same n,
   * so the best is set in bold only when every row with a value has the same `ExportTable.n` (issue 30).
   */
  total?: boolean;
}

export type ExportCell = string | { value: number | null; low?: number | null; high?: number | null };

export interface ExportTable {
  caption: string;
  /** A LaTeX \label key. */
  label: string;
  columns: ExportColumn[];
  rows: ExportCell[][];
  /** Each row's n (its questions), for the columns that are totals. */
  n?: (number | null)[];
}

const UNIT: Record<ColumnKind, string> = {
  text: "",
  percent: " (%)",
  points: " (pp)",
  count: "",
  usd: " (USD)",
  p: "",
};

function number(kind: ColumnKind, v: number): string {
  if (kind === "percent") return (v * 100).toFixed(1);
  if (kind === "points") {
    const t = (v * 100).toFixed(1);
    return v > 0 && t !== "0.0" ? `+${t}` : t === "-0.0" ? "0.0" : t;
  }
  if (kind === "usd") return v.toFixed(Math.abs(v) < 1 ? 4 : 2);
  if (kind === "p") return v < 0.001 ? "< 0.001" : v.toFixed(3);
  return Number.isInteger(v) ? String(v) : v.toFixed(2);
}

/** Indices of the rows holding each column's best value (ties all count). */
function bestRows(t: ExportTable): Set<number>[] {
  return t.columns.map((c, j) => {
    if (!c.best) return new Set<number>();
    const values = t.rows.map((r) => {
      const cell = r[j];
      return typeof cell === "object" && cell.value !== null ? cell.value : null;
    });
    const known = values.filter((v): v is number => v !== null);
    if (known.length < 2) return new Set<number>();
    // Totals over different numbers of questions are not comparable: no best.
    if (c.total && new Set(values.flatMap((v, i) => (v === null ? [] : [t.n?.[i] ?? null]))).size > 1)
      return new Set<number>();
    const target = c.best === "max" ? Math.max(...known) : Math.min(...known);
    return new Set(values.flatMap((v, i) => (v !== null && number(c.kind, v) === number(c.kind, target) ? [i] : [])));
  });
}

const LATEX_SPECIAL: Record<string, string> = {
  "\\": "\\textbackslash{}",
  "&": "\\&",
  "%": "\\%",
  $: "\\$",
  "#": "\\#",
  _: "\\_",
  "{": "\\{",
  "}": "\\}",
  "~": "\\textasciitilde{}",
  "^": "\\textasciicircum{}",
};
// Symbols pdflatex's default UTF-8 input does not know, in math mode.
const LATEX_SYMBOLS: Record<string, string> = {
  Σ: "$\\Sigma$",
  Δ: "$\\Delta$",
  "−": "$-$",
  "×": "$\\times$",
  "≤": "$\\leq$",
  "≥": "$\\geq$",
  "±": "$\\pm$",
  "→": "$\\rightarrow$",
  "…": "\\ldots{}",
  "·": "$\\cdot$",
};
export const latexEscape = (s: string) =>
  s.replace(/[\\&%$#_{}~^]/g, (c) => LATEX_SPECIAL[c]).replace(/[ΣΔ−×≤≥±→…·]/g, (c) => LATEX_SYMBOLS[c]);

/** A caption's note on simulated data: a figure of the demo is never mistaken for a model's. */
export const SIMULATED_NOTE = "SIMULATED demo data, produced by Metron's simulated policy, not by a model.";

/** The mark of a row from simulated runs, and the caption's word for it (only those rows are simulated). */
export const SIMULATED_MARK = " (simulated)";
export const SIMULATED_ROWS_NOTE =
  "Rows marked (simulated) are SIMULATED demo data, produced by Metron's simulated policy, not by a model.";

type Render = { bold: (s: string) => string; small: (s: string) => string; text: (s: string) => string };

function cellText(col: ExportColumn, cell: ExportCell, best: boolean, r: Render): string {
  if (typeof cell === "string") return r.text(cell);
  if (cell.value === null) return "--";
  const main = number(col.kind, cell.value);
  const interval =
    cell.low != null && cell.high != null
      ? ` ${r.small(`[${number(col.kind, cell.low)}, ${number(col.kind, cell.high)}]`)}`
      : "";
  return `${best ? r.bold(main) : main}${interval}`;
}

export function toLatex(t: ExportTable): string {
  const best = bestRows(t);
  const r: Render = {
    bold: (s) => `\\textbf{${s}}`,
    small: (s) => `{\\scriptsize ${s}}`,
    text: latexEscape,
  };
  const align = t.columns.map((c) => (c.kind === "text" ? "l" : "r")).join("");
  const header = t.columns.map((c) => latexEscape(`${c.label}${UNIT[c.kind]}`)).join(" & ");
  const body = t.rows.map(
    (row, i) => `${row.map((cell, j) => cellText(t.columns[j], cell, best[j].has(i), r)).join(" & ")} \\\\`,
  );
  return [
    "% \\usepackage{booktabs}",
    "\\begin{table}[t]",
    "\\centering",
    `\\caption{${latexEscape(t.caption)}}`,
    `\\label{${t.label.replace(/[^\w:.-]+/g, "-")}}`,
    `\\begin{tabular}{${align}}`,
    "\\toprule",
    `${header} \\\\`,
    "\\midrule",
    ...body,
    "\\bottomrule",
    "\\end{tabular}",
    "\\end{table}",
    "",
  ].join("\n");
}

export function toMarkdown(t: ExportTable): string {
  const best = bestRows(t);
  const escape = (s: string) => s.replace(/\|/g, "\\|");
  const r: Render = { bold: (s) => `**${s}**`, small: (s) => s, text: escape };
  const header = `| ${t.columns.map((c) => escape(`${c.label}${UNIT[c.kind]}`)).join(" | ")} |`;
  const rule = `| ${t.columns.map((c) => (c.kind === "text" ? "---" : "---:")).join(" | ")} |`;
  const body = t.rows.map(
    (row, i) => `| ${row.map((cell, j) => cellText(t.columns[j], cell, best[j].has(i), r)).join(" | ")} |`,
  );
  return [header, rule, ...body, "", `*${escape(t.caption)}*`, ""].join("\n");
}

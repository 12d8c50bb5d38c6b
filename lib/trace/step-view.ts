/**
 * How an expanded step shows its result (pure): tabular results as a table (a JSON array of objects or arrays,
 * or text whose lines split into the same number of `|` or tab-separated cells), JSON as JSON, the rest as text.
 * Long results are cut to a row cap or a character cap; the full size is reported.
 */
export type ResultView =
  | { kind: "none" }
  | { kind: "table"; columns: string[] | null; rows: string[][]; totalRows: number }
  | { kind: "json"; text: string; size: number }
  | { kind: "text"; text: string; size: number; truncated: boolean };

export const RESULT_ROW_CAP = 5000;
export const RESULT_TEXT_CAP = 200_000;

const cell = (v: unknown) => (v === null ? "NULL" : typeof v === "object" ? JSON.stringify(v) : String(v));

function splitRow(line: string, sep: "|" | "\t"): string[] {
  let l = line.trim();
  if (sep === "|") l = l.replace(/^\|/, "").replace(/\|$/, "");
  return l.split(sep).map((c) => c.trim());
}

function textTable(text: string): { columns: string[] | null; rows: string[][] } | null {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
  if (lines.length < 2) return null;
  for (const sep of ["|", "\t"] as const) {
    const body = lines.filter((l) => !/^[\s|:+-]+$/.test(l)); // markdown / ASCII separator lines
    const counts = new Set(body.map((l) => splitRow(l, sep).length));
    if (counts.size === 1 && [...counts][0] >= 2 && body.every((l) => l.includes(sep))) {
      const rows = body.map((l) => splitRow(l, sep));
      const hasHeader = lines.length > body.length; // a separator line marks the header
      return hasHeader ? { columns: rows[0], rows: rows.slice(1) } : { columns: null, rows };
    }
  }
  return null;
}

export function resultView(resultJson: string | null): ResultView {
  if (resultJson === null) return { kind: "none" };
  let value: unknown;
  try {
    value = JSON.parse(resultJson);
  } catch {
    value = resultJson;
  }
  if (Array.isArray(value) && value.length > 0 && value.every((r) => r && typeof r === "object")) {
    const objects = value.every((r) => !Array.isArray(r));
    const columns = objects ? [...new Set(value.flatMap((r) => Object.keys(r as object)))] : null;
    const rows = value
      .slice(0, RESULT_ROW_CAP)
      .map((r) =>
        objects ? columns!.map((c) => cell((r as Record<string, unknown>)[c])) : (r as unknown[]).map(cell),
      );
    return { kind: "table", columns, rows, totalRows: value.length };
  }
  if (typeof value === "string") {
    const table = textTable(value.slice(0, RESULT_TEXT_CAP));
    if (table && table.rows.length > 0)
      return {
        kind: "table",
        columns: table.columns,
        rows: table.rows.slice(0, RESULT_ROW_CAP),
        totalRows: table.rows.length,
      };
    return {
      kind: "text",
      text: value.slice(0, RESULT_TEXT_CAP),
      size: value.length,
      truncated: value.length > RESULT_TEXT_CAP,
    };
  }
  const text = JSON.stringify(value, null, 2);
  return { kind: "json", text: text.slice(0, RESULT_TEXT_CAP), size: text.length };
}

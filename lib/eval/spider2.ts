/**
 * Spider 2.0's result comparison (xlang-ai/Spider2, spider2-lite/evaluation_suite/evaluate.py, `compare_pandas_table`
 * and `compare_multi_pandas_table`), reproduced rule by rule. Pure.
 *
 * The script writes the predicted result to a CSV file with pandas and reads it back, and reads the gold answers
 * from CSV files, so values reach the comparison with the types pandas infers per column from CSV text: a column
 * whose every cell reads as an integer is integers, as a number is numbers, otherwise strings; an empty cell (and
 * pandas' other NA spellings) is missing. Then:
 * - it compares **columns**, not rows: every gold column (only the `condition_cols` ones, by position, when the
 *   question names some) must equal some predicted column; extra predicted columns and their order do not matter;
 * - missing becomes 0; two numbers are equal within an absolute tolerance of 0.01 (`math.isclose(abs_tol=1e-2)`),
 *   anything else must be equal exactly (a number never equals a string);
 * - with `ignore_order` each column's values are sorted (by their Python `str`) before the comparison, each column
 *   on its own; without it the values are compared in row order and the row counts must agree;
 * - several gold answers (`<id>_a.csv`, `<id>_b.csv`, …): the prediction is correct when it matches any of them,
 *   each with its own `condition_cols` when the question gives a list per answer.
 */
import { parse } from "csv-parse/sync";
import type { SqlValue } from "@/lib/sandbox/sandbox";

/** One cell as the script sees it after the CSV round trip. `py` is Python's `str()` of it (the sort key). */
export type Cell = { kind: "na" } | { kind: "num"; n: number; py: string } | { kind: "str"; s: string };

/** A question's evaluation standard, as in `spider2lite_eval.jsonl`. */
export interface Spider2Standard {
  condition_cols?: unknown;
  ignore_order?: boolean;
}

// pandas' default `na_values` (pandas 2.x, `STR_NA_VALUES`).
const NA = new Set([
  "",
  "#N/A",
  "#N/A N/A",
  "#NA",
  "-1.#IND",
  "-1.#QNAN",
  "-NaN",
  "-nan",
  "1.#IND",
  "1.#QNAN",
  "<NA>",
  "N/A",
  "NA",
  "NULL",
  "NaN",
  "None",
  "n/a",
  "nan",
  "null",
]);
const INT = /^[+-]?\d+$/;
const FLOAT = /^[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?|inf(?:inity)?)$/i;
const BOOL_TRUE = new Set(["True", "TRUE", "true"]);
const BOOL_FALSE = new Set(["False", "FALSE", "false"]);

/** Python's `repr` of a float (shortest round-trip digits; exponent form below 1e-4 and from 1e16). */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mant, expText] = x.toExponential().split("e");
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) {
    // Python writes "1e+16", "1.5e-05": the shortest digits, a sign, two exponent digits at least.
    return `${mant}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  const sign = mant.startsWith("-") ? "-" : "";
  const digits = mant.replace(/^-/, "").replace(".", "");
  const point = exp + 1; // digits before the decimal point
  const text =
    point <= 0
      ? `0.${"0".repeat(-point)}${digits}`
      : digits.length <= point
        ? `${digits}${"0".repeat(point - digits.length)}.0`
        : `${digits.slice(0, point)}.${digits.slice(point)}`;
  return sign + text;
}

/** One column of CSV cell texts as `pd.read_csv` types it. */
export function readCsvColumn(texts: string[]): Cell[] {
  const present = texts.filter((t) => !NA.has(t));
  const hasNa = present.length < texts.length;
  const na: Cell = { kind: "na" };
  if (present.length && present.every((t) => INT.test(t) && Number.isSafeInteger(Number(t))))
    // An integer column with a missing cell becomes a float column.
    return texts.map((t) => {
      if (NA.has(t)) return na;
      const n = Number(t);
      return { kind: "num", n, py: hasNa ? pyFloat(n) : String(BigInt(t)) };
    });
  if (present.length && present.every((t) => INT.test(t) || FLOAT.test(t)))
    return texts.map((t) => {
      if (NA.has(t)) return na;
      const n = /inf/i.test(t) ? (t.startsWith("-") ? -Infinity : Infinity) : Number(t);
      return { kind: "num", n, py: pyFloat(n) };
    });
  if (present.length && !hasNa && present.every((t) => BOOL_TRUE.has(t) || BOOL_FALSE.has(t)))
    // A bool column: Python's bool is an int (True == 1) whose str is "True".
    return texts.map((t) =>
      BOOL_TRUE.has(t) ? { kind: "num", n: 1, py: "True" } : { kind: "num", n: 0, py: "False" },
    );
  return texts.map((t) => (NA.has(t) ? na : { kind: "str", s: t }));
}

/** How pandas' `to_csv` writes one SQLite value (as `pd.read_sql_query` typed it). */
function csvText(v: SqlValue, floatColumn: boolean): string {
  if (v === null) return "";
  if (typeof v === "bigint") return String(v);
  if (typeof v === "number") return floatColumn ? pyFloat(v) : String(v);
  if (typeof v === "string") return v;
  return `b'${Buffer.from(v).toString("latin1")}'`;
}

/** A query result's columns after the script's CSV round trip (to_csv, then read_csv). */
export function resultColumns(rows: SqlValue[][], width = rows[0]?.length ?? 0): Cell[][] {
  return Array.from({ length: width }, (_, c) => {
    const values = rows.map((r) => r[c] ?? null);
    // pandas makes a column of numbers with a missing value, or with any non-integer, a float column.
    const numeric = values.every((v) => v === null || typeof v === "number" || typeof v === "bigint");
    const floatColumn = numeric && values.some((v) => v === null || (typeof v === "number" && !Number.isInteger(v)));
    return readCsvColumn(values.map((v) => csvText(v, floatColumn)));
  });
}

/** A gold answer CSV file (header line, then rows) as the script reads it: its columns. */
export function csvAnswerColumns(text: string): Cell[][] {
  const records = parse(text.replace(/^\uFEFF/, ""), {
    relax_column_count: true,
    skip_empty_lines: true,
  }) as string[][];
  const [header = [], ...rows] = records;
  return header.map((_, c) => readCsvColumn(rows.map((r) => r[c] ?? "")));
}

const zero: Cell = { kind: "num", n: 0, py: "0" };
const normalize = (c: Cell): Cell => (c.kind === "na" ? zero : c);
const sortKey = (c: Cell) => (c.kind === "num" ? c.py : c.kind === "str" ? c.s : "");

function isClose(a: number, b: number): boolean {
  if (a === b) return true;
  if (!Number.isFinite(a) || !Number.isFinite(b)) return false;
  const diff = Math.abs(a - b);
  return diff <= Math.max(1e-9 * Math.max(Math.abs(a), Math.abs(b)), 1e-2);
}

function byPythonStr(a: Cell, b: Cell): number {
  const ka = sortKey(a);
  const kb = sortKey(b);
  if (ka !== kb) return ka < kb ? -1 : 1;
  // Python's key ends with "is a number": False (strings) before True.
  return (a.kind === "num" ? 1 : 0) - (b.kind === "num" ? 1 : 0);
}

/** `vectors_match`: one gold column against one predicted column. */
export function vectorsMatch(gold: Cell[], pred: Cell[], ignoreOrder: boolean): boolean {
  let g = gold.map(normalize);
  let p = pred.map(normalize);
  if (ignoreOrder) {
    g = [...g].sort(byPythonStr);
    p = [...p].sort(byPythonStr);
  }
  if (g.length !== p.length) return false;
  return g.every((a, i) => {
    const b = p[i];
    if (a.kind === "num" && b.kind === "num") return isClose(a.n, b.n);
    if (a.kind === "num" || b.kind === "num") return false;
    return a.kind === "str" && b.kind === "str" && a.s === b.s;
  });
}

export type Spider2Verdict = { ok: true; match: boolean } | { ok: false; error: string };

/** `compare_pandas_table`: every chosen gold column equals some predicted column. */
function compareTable(pred: Cell[][], gold: Cell[][], conditionCols: unknown, ignoreOrder: boolean): Spider2Verdict {
  if (!gold.length) return { ok: false, error: "the gold answer has no columns" };
  let cols = gold;
  const chosen = conditionCols === undefined || conditionCols === null ? [] : conditionCols;
  const list = Array.isArray(chosen) ? chosen : [chosen];
  if (list.length) {
    if (!list.every((i) => Number.isInteger(i)))
      return { ok: false, error: `condition_cols ${JSON.stringify(conditionCols)}: not a list of column positions` };
    const bad = (list as number[]).find((i) => i >= gold.length || i < -gold.length);
    if (bad !== undefined)
      return { ok: false, error: `condition_cols names column ${bad}; the gold answer has ${gold.length} columns` };
    cols = (list as number[]).map((i) => gold[i < 0 ? gold.length + i : i]);
  }
  return { ok: true, match: cols.every((g) => pred.some((p) => vectorsMatch(g, p, ignoreOrder))) };
}

/**
 * `compare_multi_pandas_table` (several gold answers) and `compare_pandas_table` (one): the script's handling of
 * `condition_cols` — none given, `[]`, `[[]]` or `[null]` means every column; a flat list with several answers
 * applies to each; a list of lists gives each answer its own. One answer with a list of lists uses its first list.
 */
export function spider2Match(pred: Cell[][], golds: Cell[][][], standard: Spider2Standard = {}): Spider2Verdict {
  if (!golds.length) return { ok: false, error: "no gold answer" };
  const ignoreOrder = standard.ignore_order === true;
  const cc = standard.condition_cols;
  const none =
    cc === undefined ||
    cc === null ||
    (Array.isArray(cc) &&
      (cc.length === 0 || (cc.length === 1 && (cc[0] === null || (Array.isArray(cc[0]) && cc[0].length === 0)))));
  const nested = Array.isArray(cc) && cc.length > 0 && cc.every((x) => Array.isArray(x));
  for (let i = 0; i < golds.length; i++) {
    const own = none ? [] : nested ? (cc as unknown[])[golds.length === 1 ? 0 : i] : cc;
    if (own === undefined)
      return {
        ok: false,
        error: `condition_cols gives ${(cc as unknown[]).length} lists for ${golds.length} gold answers`,
      };
    const v = compareTable(pred, golds[i], own, ignoreOrder);
    if (!v.ok || v.match) return v;
  }
  return { ok: true, match: false };
}

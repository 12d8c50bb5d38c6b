/**
 * SQL probes and their refinements (SDE-SQL): a probe is a data-inspection or execution step that ran SQL.
 * When a probe's result is empty, SDE-SQL decomposes and rewrites it; a later probe over the same tables with
 * changed SQL is marked as the refinement of the empty one. Pure.
 */
import type { StepClass } from "./classify-step";

const EMPTY_TEXT = [
  /^\s*$/,
  /^\s*(?:\[\s*\]|\{\s*\})\s*$/,
  /\(0 rows\)\s*$/i, // Metron's own tools
  /^\s*(?:no rows|0 rows|no results?|empty result(?: set)?|no data(?: found)?|the query returned no rows|query returned 0 rows)\b/i,
];
const ROW_KEYS = ["rows", "data", "results", "result", "records"];
const COUNT_KEYS = ["row_count", "rowCount", "num_rows", "rows_returned"];

/**
 * Whether a recorded tool result holds no rows: true or false when it can tell, null when nothing was recorded.
 * Reads JSON arrays, objects with a rows-like array or a row count, and the usual "no rows" texts.
 */
export function isEmptyResult(result: unknown, depth = 0): boolean | null {
  if (result === undefined || result === null) return null;
  if (Array.isArray(result)) return result.length === 0;
  if (typeof result === "object") {
    const o = result as Record<string, unknown>;
    for (const k of COUNT_KEYS) if (typeof o[k] === "number") return o[k] === 0;
    for (const k of ROW_KEYS) if (k in o && depth < 3) return isEmptyResult(o[k], depth + 1) ?? false;
    return false;
  }
  if (typeof result !== "string") return false;
  const text = result.length > 4096 ? result.slice(0, 4096) : result;
  if (EMPTY_TEXT.some((re) => re.test(text))) return true;
  const first = text.trimStart()[0];
  if ((first === "[" || first === "{") && result.length <= 65_536 && depth < 3) {
    try {
      return isEmptyResult(JSON.parse(result), depth + 1) ?? false;
    } catch {
      return false;
    }
  }
  return false;
}

export interface ProbeStep {
  cls: StepClass | null;
  /** The SQL the step ran, when it ran SQL. */
  sql: string | undefined;
  /** The step's recorded result was empty (true), not (false), or not recorded (null). */
  empty: boolean | null;
}

export interface ProbeMarks {
  /** Probes whose result was empty; null when no probe's result was recorded. */
  emptyProbeCount: number | null;
  /** Per step: the index of the empty probe it refines, or null. */
  refines: (number | null)[];
}

const isProbe = (s: ProbeStep) =>
  s.cls !== null &&
  s.sql !== undefined &&
  !s.cls.exploratory &&
  (s.cls.role === "data_inspection" || s.cls.role === "execution");
const normalize = (sql: string) => sql.replace(/\s+/g, " ").trim().replace(/;$/, "");
const tableKey = (tables: string[]) =>
  tables
    .map((t) => t.toLowerCase())
    .sort()
    .join("\u0000");

export function markProbes(steps: ProbeStep[]): ProbeMarks {
  let recorded = false;
  let empty = 0;
  const refines: (number | null)[] = steps.map(() => null);
  // The latest empty probe per table set, waiting for its refinement.
  const open = new Map<string, { index: number; sql: string }>();
  steps.forEach((s, i) => {
    if (!isProbe(s)) return;
    const key = tableKey(s.cls!.tables);
    const pending = open.get(key);
    // Normalized only when compared or kept: most probes meet no empty probe on their tables (a pass over every
    // probe's text was 3 % of the ingest worker's time).
    let sql: string | undefined;
    if (pending && pending.sql !== (sql = normalize(s.sql!))) {
      refines[i] = pending.index;
      open.delete(key);
    }
    if (s.empty !== null) recorded = true;
    if (s.empty) {
      empty++;
      if (s.cls!.tables.length) open.set(key, { index: i, sql: sql ?? normalize(s.sql!) });
    }
  });
  return { emptyProbeCount: recorded ? empty : null, refines };
}

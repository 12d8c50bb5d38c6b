/**
 * What differs between the engines, for typed queries (lib/db/typed.ts): JSON members, integer text, the outcome
 * that counts as correct. Each helper takes the query's expression builder and a column of it, so the column is
 * checked against the schema at type-check time like any other; the SQL is the engine's own (no text rewriting).
 */
import { sql as raw, type ExpressionBuilder, type RawBuilder, type StringReference } from "kysely";
import type { Sql } from "./sql";
import { qb } from "./typed";
import { PLAIN_INTEGER } from "./sql";

/** Outcomes that count in execution accuracy's denominator; gold errors and unevaluated traces do not. */
export const JUDGED_OUTCOMES = ["correct", "wrong_result", "pred_error", "timeout", "no_submission"] as const;

const pgPath = (path: string) => raw.lit(`{${path.split(".").join(",")}}`);
const sqlitePath = (path: string) => raw.lit(`$.${path}`);

/** A JSON member of a text column as text (or NULL). Paths are dot-separated keys: `"rerun_of.trace_id"`. */
export function jsonText<DB, TB extends keyof DB>(
  sql: Sql,
  eb: ExpressionBuilder<DB, TB>,
  column: StringReference<DB, TB>,
  path: string,
): RawBuilder<string | null> {
  const c = eb.ref(column);
  return sql.dialect === "postgres"
    ? raw<string | null>`((${c})::jsonb #>> ${pgPath(path)})`
    : raw<string | null>`json_extract(${c}, ${sqlitePath(path)})`;
}

/** A JSON member as SQLite's `json_extract` gives it to arithmetic and truth tests: numbers, true → 1, false → 0. */
export function jsonValue<DB, TB extends keyof DB>(
  sql: Sql,
  eb: ExpressionBuilder<DB, TB>,
  column: StringReference<DB, TB>,
  path: string,
): RawBuilder<number | string | null> {
  const c = eb.ref(column);
  if (sql.dialect !== "postgres") return raw`json_extract(${c}, ${sqlitePath(path)})`;
  const member = raw`(${c})::jsonb #> ${pgPath(path)}`;
  const text = raw`(${c})::jsonb #>> ${pgPath(path)}`;
  return raw`(CASE jsonb_typeof(${member}) WHEN 'number' THEN (${text})::double precision WHEN 'boolean' THEN (CASE WHEN (${text}) = 'true' THEN 1 ELSE 0 END) END)`;
}

/** Whether a text is an integer written plainly ("12", not "012" or "1e3"), as SQLite's `CAST(x AS INTEGER) = x`. */
export function isInteger<DB, TB extends keyof DB>(
  sql: Sql,
  eb: ExpressionBuilder<DB, TB>,
  column: StringReference<DB, TB>,
): RawBuilder<boolean> {
  const e = eb.ref(column);
  return sql.dialect === "postgres"
    ? raw<boolean>`(${e} ~ ${raw.lit(PLAIN_INTEGER)})`
    : raw<boolean>`(CAST(${e} AS INTEGER) = ${e})`;
}

/** That integer (NULL for other text). */
export function asInteger<DB, TB extends keyof DB>(
  sql: Sql,
  eb: ExpressionBuilder<DB, TB>,
  column: StringReference<DB, TB>,
): RawBuilder<number | null> {
  const e = eb.ref(column);
  return sql.dialect === "postgres"
    ? raw<number | null>`(CASE WHEN ${e} ~ ${raw.lit(PLAIN_INTEGER)} THEN (${e})::bigint END)`
    : raw<number | null>`CAST(${e} AS INTEGER)`;
}

/**
 * Whether a trace counts as correct (docs/metrics.md): its re-evaluated outcome when it was evaluated (a gold error
 * leaves it out: NULL), else its recorded correctness. 1, 0 or NULL.
 */
export function effectiveCorrect<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  outcome: StringReference<DB, TB>,
  recorded: StringReference<DB, TB>,
): RawBuilder<number | null> {
  const o = eb.ref(outcome);
  const judged = raw.join(JUDGED_OUTCOMES.map((j) => raw.lit(j)));
  return raw<
    number | null
  >`(CASE WHEN ${o} = 'correct' THEN 1 WHEN ${o} IN (${judged}) THEN 0 WHEN ${o} = 'gold_error' THEN NULL ELSE ${eb.ref(recorded)} END)`;
}

/**
 * `column IN` the elements of an array passed as one JSON parameter (a list of any length, within the engines'
 * parameter limits).
 */
export function inJsonArray<DB, TB extends keyof DB>(
  sql: Sql,
  eb: ExpressionBuilder<DB, TB>,
  column: StringReference<DB, TB>,
  values: readonly string[],
): RawBuilder<boolean> {
  const list = JSON.stringify(values);
  return sql.dialect === "postgres"
    ? raw<boolean>`${eb.ref(column)} IN (SELECT jsonb_array_elements_text(${list}::jsonb))`
    : raw<boolean>`${eb.ref(column)} IN (SELECT value FROM json_each(${list}))`;
}

/** The distinct values of a text column, comma-separated (NULL when none). */
export function distinctList<DB, TB extends keyof DB>(
  sql: Sql,
  eb: ExpressionBuilder<DB, TB>,
  column: StringReference<DB, TB>,
): RawBuilder<string | null> {
  return sql.dialect === "postgres"
    ? raw<string | null>`string_agg(DISTINCT ${eb.ref(column)}, ',')`
    : raw<string | null>`group_concat(DISTINCT ${eb.ref(column)})`;
}

/** A JSON member as a number (or NULL, also for a member that is not a number on PostgreSQL). */
export function jsonNumber<DB, TB extends keyof DB>(
  sql: Sql,
  eb: ExpressionBuilder<DB, TB>,
  column: StringReference<DB, TB>,
  path: string,
): RawBuilder<number | null> {
  const c = eb.ref(column);
  return sql.dialect === "postgres"
    ? raw<
        number | null
      >`(CASE WHEN jsonb_typeof((${c})::jsonb #> ${pgPath(path)}) = 'number' THEN ((${c})::jsonb #>> ${pgPath(path)})::double precision END)`
    : raw<number | null>`json_extract(${c}, ${sqlitePath(path)})`;
}

/** Text compared without case (ASCII), as SQLite's NOCASE. */
export function nocase<DB, TB extends keyof DB>(
  sql: Sql,
  eb: ExpressionBuilder<DB, TB>,
  column: StringReference<DB, TB>,
): RawBuilder<string> {
  return sql.dialect === "postgres"
    ? raw<string>`lower(${eb.ref(column)})`
    : raw<string>`${eb.ref(column)} COLLATE NOCASE`;
}

/** Where a run (`r`) belongs in the views: its dataset, else its benchmark, else "(no dataset)". */
export function runGroup<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  dataset: StringReference<DB, TB>,
  benchmark: StringReference<DB, TB>,
): RawBuilder<string> {
  return raw<string>`coalesce(${eb.ref(dataset)}, ${eb.ref(benchmark)}, ${raw.lit("(no dataset)")})`;
}

/** Any text expression ordered by code point on both engines (`binary` in typed.ts does it for a column). */
export function byCodePoint(sql: Sql, e: RawBuilder<string>): RawBuilder<string> {
  return sql.dialect === "postgres" ? raw<string>`${e} collate "C"` : e;
}

/** Which traces an operation concerns: a whole run's, or some by id. */
export type TraceSelection = { runId: string } | { traceIds: readonly string[] };

/** The ids of the traces a selection names, as a subquery (`where("trace_id", "in", selectedTraceIds(…))`). */
export function selectedTraceIds(sql: Sql, selection: TraceSelection) {
  const q = qb(sql).selectFrom("traces").select("traces.id");
  return "runId" in selection
    ? q.where("traces.run_id", "=", selection.runId)
    : q.where((eb) => inJsonArray(sql, eb, "traces.id", selection.traceIds));
}

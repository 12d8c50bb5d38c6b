/** The search's filters as typed conditions: a trace's terms over `t` and `r`, a step's over `s` (lib/search/query.ts). */
import type { Expression, ExpressionBuilder, ExpressionWrapper, SqlBool } from "kysely";
import type { Sql } from "@/lib/db/sql";
import { raw, type Tables } from "@/lib/db/typed";
import { effectiveCorrect } from "@/lib/db/typed-sql";
import { parseScoreTerm, type ParsedQuery } from "./query";

/** The query's tables: traces `t`, their runs `r`, a step `s` and a search document `d`. */
export type SearchDb = Tables & {
  t: Tables["traces"];
  r: Tables["runs"];
  s: Tables["steps"];
  d: Tables["search_docs"];
};
type Condition = ExpressionWrapper<SearchDb, "t" | "r", SqlBool> | Expression<SqlBool>;

/** A trace's terms, over `t` and `r`. */
export function traceConditions(eb: ExpressionBuilder<SearchDb, "t" | "r">, terms: ParsedQuery["terms"]): Condition[] {
  const out: Condition[] = [];
  const correct = () => effectiveCorrect(eb, "t.ex_outcome", "t.recorded_correct");
  for (const { key, value } of terms) {
    if (key === "system") out.push(eb("r.system", "=", value));
    else if (key === "model") out.push(eb("r.model", "=", value));
    else if (key === "run") out.push(eb.or([eb("r.id", "=", value), eb("r.name", "=", value)]));
    else if (key === "dataset") out.push(eb("r.dataset_id", "=", value));
    else if (key === "db") out.push(eb("t.db_id", "=", value));
    else if (key === "question") out.push(eb("t.question_id", "=", value));
    else if (key === "label")
      out.push(
        eb.exists(
          eb
            .selectFrom("labels as l")
            .select("l.trace_id")
            .whereRef("l.trace_id", "=", "t.id")
            .where("l.label", "=", value),
        ),
      );
    else if (key === "score") {
      const t = parseScoreTerm(value)!;
      out.push(
        eb.exists(
          eb
            .selectFrom("scores as sc")
            .select("sc.trace_id")
            .whereRef("sc.trace_id", "=", "t.id")
            .where("sc.seq", "=", -1)
            .where("sc.name", "=", t.name)
            .$if(t.op !== null, (w) =>
              w.where((sb) =>
                typeof t.value === "string"
                  ? sb("sc.category", t.op === "!=" ? "!=" : "=", t.value)
                  : sb("sc.value", t.op!, typeof t.value === "boolean" ? (t.value ? 1 : 0) : t.value!),
              ),
            ),
        ),
      );
    } else if (key === "outcome") {
      if (value === "right" || value === "correct") out.push(eb(correct(), "=", 1));
      else if (value === "wrong") out.push(eb(correct(), "=", 0));
      else if (value === "unjudged") out.push(eb(correct(), "is", null));
      else out.push(eb("t.ex_outcome", "=", value));
    }
  }
  return out;
}

/** A step's terms, over `s`. */
export function stepConditions(
  sql: Sql,
  eb: ExpressionBuilder<SearchDb, "s">,
  terms: ParsedQuery["terms"],
): Condition[] {
  const out: Condition[] = [];
  for (const { key, value } of terms) {
    if (key === "tool") out.push(eb("s.tool", "=", value));
    else if (key === "role") out.push(eb("s.tool_role", "=", value));
    else if (key === "table") {
      const tables = eb.ref("s.tables");
      out.push(
        sql.dialect === "postgres"
          ? raw<SqlBool>`EXISTS (SELECT 1 FROM jsonb_array_elements_text(${tables}::jsonb) j WHERE lower(j) = lower(${value}))`
          : raw<SqlBool>`EXISTS (SELECT 1 FROM json_each(${tables}) j WHERE lower(j.value) = lower(${value}))`,
      );
    }
  }
  return out;
}

/** A trace's distinct labels, in code-point order, joined by U+0001 (NULL when none). */
export function labelList(sql: Sql, eb: ExpressionBuilder<SearchDb, "t" | "r">) {
  const t = eb.ref("t.id");
  return sql.dialect === "postgres"
    ? raw<
        string | null
      >`(SELECT string_agg(label, chr(1) ORDER BY label COLLATE "C") FROM (SELECT DISTINCT label FROM labels WHERE trace_id = ${t}) x)`
    : raw<
        string | null
      >`(SELECT group_concat(label, char(1)) FROM (SELECT DISTINCT label FROM labels WHERE trace_id = ${t} ORDER BY label))`;
}

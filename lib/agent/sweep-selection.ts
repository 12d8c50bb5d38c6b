/** Which questions a sweep runs: the failing ones of a run, a list of ids (a page's filter), or all of a dataset. */
import type { Sql } from "@/lib/db/sql";
import { many, qb, raw } from "@/lib/db/typed";
import { effectiveCorrect } from "@/lib/db/typed-sql";

export class SweepError extends Error {}

export type Selection =
  | { kind: "failing"; runId: string }
  | { kind: "all" }
  | { kind: "ids"; ids: string[] }
  /** The questions of the source run's current filter (the page sends their ids). */
  | { kind: "filter"; ids: string[]; description: string };

/** Questions a run got wrong in every sample that was judged (never-judged questions are not failing: unknown). */
export async function failingQuestions(sql: Sql, runId: string): Promise<string[]> {
  return (
    await many(
      sql,
      qb(sql)
        .selectFrom("traces as t")
        .select("t.question_id as id")
        .where("t.run_id", "=", runId)
        .groupBy("t.question_id")
        .having((eb) => eb(eb.fn.max(effectiveCorrect(eb, "t.ex_outcome", "t.recorded_correct")), "=", 0)),
    )
  ).map((r) => r.id);
}

/** Resolves a selection to question ids of the dataset, in the dataset's order. */
export async function selectQuestions(sql: Sql, datasetId: string, selection: Selection): Promise<string[]> {
  const all = (
    await many(
      sql,
      qb(sql)
        .selectFrom("questions")
        .select("question_id as id")
        .where("dataset_id", "=", datasetId)
        .orderBy("position")
        // Datasets imported before questions had a position hold 0 everywhere: SQLite's insertion order then.
        .$if(sql.dialect === "sqlite", (q) => q.orderBy(raw`rowid`)),
    )
  ).map((r) => r.id);
  if (selection.kind === "all") return all;
  if (selection.kind === "failing") {
    const failing = new Set(await failingQuestions(sql, selection.runId));
    return all.filter((id) => failing.has(id));
  }
  const known = new Set(all);
  const missing = selection.ids.filter((id) => !known.has(id));
  if (missing.length)
    throw new SweepError(
      `the dataset has no question ${missing.slice(0, 5).join(", ")}${missing.length > 5 ? ` (and ${missing.length - 5} more)` : ""}`,
    );
  return [...new Set(selection.ids)];
}

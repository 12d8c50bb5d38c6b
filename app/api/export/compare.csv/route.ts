import { createLoader } from "nuqs/server";
import { getSql } from "@/lib/db/store";
import { loadComparison } from "@/lib/db/queries/compare";
import { listTraceTexts } from "@/lib/db/queries/traces";
import { filterCompareRows } from "@/lib/metrics/compare-runs";
import { labelledKeys } from "@/lib/labels/labels";
import { csvResponse } from "@/lib/metrics/csv";
import { labelsByQuestion } from "@/lib/labels/labels";
import { compareSearchParams } from "@/lib/url/compare";

const loadParams = createLoader(compareSearchParams);

/** The compare table as CSV, with the page's filters: one row per (question, sample), columns per run, streamed. */
export async function GET(request: Request) {
  const params = loadParams(new URL(request.url).searchParams);
  const { runs, baseline, comparison } = await loadComparison(await getSql(), params.runs, params.baseline);
  if (!comparison) return Response.json({ error: "give at least two known run ids: ?runs=A,B" }, { status: 400 });
  const label = (i: number) => `${runs[i].system} · ${runs[i].model}`.replace(/[^\w.-]+/g, "_");
  const sql = await getSql();
  const columns = [
    "question_id",
    "sample",
    "question_text",
    "db_id",
    "difficulty",
    "gold_sql",
    ...runs.flatMap((_, i) => [
      `${label(i)}_correct`,
      `${label(i)}_status`,
      `${label(i)}_exploratory`,
      `${label(i)}_gold`,
      `${label(i)}_tokens`,
      `${label(i)}_final_sql`,
      `${label(i)}_labels`,
    ]),
  ];
  const kept = filterCompareRows(
    comparison.rows,
    params,
    params.label ? await labelledKeys(sql, params.runs, params.label) : null,
  );
  // A batch at a time: each batch's texts and labels are read with it, so the export holds one batch of them, not
  // every trace's question, gold SQL and final SQL of every run (issue 36).
  async function* rows() {
    for (let at = 0; at < kept.length; at += 500) {
      const part = kept.slice(at, at + 500);
      const questions = [...new Set(part.map((r) => r.questionId))];
      const [texts, labels] = await Promise.all([
        Promise.all(runs.map((r) => listTraceTexts(sql, r.id, questions))),
        Promise.all(runs.map((r) => labelsByQuestion(sql, r.id, questions))),
      ]);
      for (const r of part) {
        const key = `${r.questionId}\u0000${r.sample}`;
        const first = texts[baseline].get(key);
        yield [
          r.questionId,
          r.sample,
          first?.questionText ?? null,
          r.dbId,
          r.difficulty,
          first?.goldSql ?? null,
          ...r.cells.flatMap((c, i) => [
            c.correct,
            i === baseline ? "baseline" : r.status[i],
            c.exploratory,
            c.goldCount,
            c.tokensRecorded === 0 ? null : c.inputTokens + c.outputTokens,
            texts[i].get(key)?.finalSql ?? null,
            labels[i].get(key) ?? null,
          ]),
        ];
      }
    }
  }
  return csvResponse("metron-compare.csv", columns, rows());
}

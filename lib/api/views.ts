/** The API's views of several runs: the Experiments matrix, a comparison, a search (the pages' own figures). */
import type { Sql } from "@/lib/db/sql";
import { getExperiment, loadOverview } from "@/lib/db/queries/overview";
import { loadComparison } from "@/lib/db/queries/compare";
import { overviewTable } from "@/lib/metrics/exports";
import { compareRunScores, summarizeRunSets } from "@/lib/scores/scores";
import { searchTraces } from "@/lib/search";
import { ApiError } from "./define";

/** The Experiments matrix as JSON: overview.csv's columns per cell, its runs, and its scores pooled. */
export async function apiExperiments(
  sql: Sql,
  q: { dataset?: string; experiment?: string; sweeps?: boolean; archived?: boolean },
) {
  let runIds: string[] | undefined;
  if (q.experiment) {
    const e = await getExperiment(sql, q.experiment);
    if (!e) throw new ApiError(404, `no experiment ${q.experiment}`, "experiment");
    runIds = e.runIds;
  }
  const { groups } = await loadOverview(sql, {
    runIds,
    dataset: q.dataset ?? null,
    sweeps: q.sweeps,
    archived: q.archived,
  });
  const { columns, rows } = overviewTable(groups);
  const idsAt = columns.indexOf("run_ids");
  const cellRuns = rows.map((row) =>
    String(row[idsAt] ?? "")
      .split(" ")
      .filter(Boolean),
  );
  const scores = await summarizeRunSets(sql, cellRuns);
  return {
    cells: rows.map((row, i) => ({
      figures: Object.fromEntries(columns.map((c, j) => [c, (row[j] ?? null) as string | number | null])),
      run_ids: cellRuns[i],
      scores: scores[i],
    })),
  };
}

export async function apiCompare(sql: Sql, runsParam: string, baselineId?: string) {
  const ids = runsParam
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const { runs, missing, baseline, comparison } = await loadComparison(sql, ids, baselineId ?? null);
  if (missing.length) throw new ApiError(404, `no run ${missing.join(", ")}`, "runs");
  if (!comparison) throw new ApiError(400, "give at least two run ids: runs=A,B", "runs");
  const scores = (
    await compareRunScores(
      sql,
      runs.map((r) => r.id),
      baseline,
    )
  ).paired;
  return {
    runs: runs.map((r) => ({ id: r.id, name: r.name, system: r.system, model: r.model })),
    baseline: runs[baseline].id,
    aligned: comparison.aligned,
    versus: comparison.versus.map((v) =>
      v
        ? {
            fixed: v.fixed,
            regressed: v.regressed,
            both_right: v.bothRight,
            both_wrong: v.bothWrong,
            unknown: v.unknown,
            mcnemar_p: v.mcnemarP,
          }
        : null,
    ),
    scores,
  };
}

export async function apiSearch(sql: Sql, q: string, limit: number) {
  const r = await searchTraces(sql, q, { limit });
  return {
    total: r.total,
    capped: r.capped,
    hits: r.hits.map((h) => ({
      trace_id: h.traceId,
      run_id: h.runId,
      question_id: h.questionId,
      sample: h.sample,
      correct: h.correct === null ? null : Number(h.correct),
      snippets: h.snippets,
    })),
  };
}

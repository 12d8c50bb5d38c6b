import { createLoader } from "nuqs/server";
import { getSql } from "@/lib/db/store";
import { getRun } from "@/lib/db/queries/runs";
import { iterateTraces, listTraceTexts } from "@/lib/db/queries/traces";
import { csvResponse } from "@/lib/metrics/csv";
import { tracesTable } from "@/lib/metrics/exports";
import { tracesSearchParams } from "@/lib/url/runs";
import { searchRunTraceIds } from "@/lib/search";
import { labelsByQuestion } from "@/lib/labels/labels";
import { listRunScoreNames, scoresByTrace } from "@/lib/scores/scores";

const loadParams = createLoader(tracesSearchParams);

/**
 * The run's questions table as CSV: every row that the page's filters select, all pages, streamed a batch at a time
 * (each batch's texts, labels and scores read with it), so the server never holds the whole run. A custom score is a
 * column `score:<name>`.
 */
export async function GET(request: Request, ctx: RouteContext<"/api/runs/[runId]/traces.csv">) {
  const { runId } = await ctx.params;
  const sql = await getSql();
  const run = await getRun(sql, runId);
  if (!run) return Response.json({ error: `no run ${runId}` }, { status: 404 });
  const params = loadParams(new URL(request.url).searchParams);
  const traceIds = params.q?.trim() ? await searchRunTraceIds(sql, runId, params.q) : null;
  const names = await listRunScoreNames(sql, runId);
  const { columns } = tracesTable([], new Map(), new Map(), { names, byTrace: new Map() });
  async function* rows() {
    for await (const batch of iterateTraces(sql, runId, { ...params, traceIds })) {
      const questions = [...new Set(batch.map((r) => r.questionId))];
      const [texts, labels, byTrace] = await Promise.all([
        listTraceTexts(sql, runId, questions),
        labelsByQuestion(sql, runId, questions),
        names.length
          ? scoresByTrace(
              sql,
              batch.map((r) => r.id),
            )
          : new Map(),
      ]);
      yield* tracesTable(batch, texts, labels, { names, byTrace }).rows;
    }
  }
  return csvResponse(`${run.name}-${run.system}-${run.model}-questions.csv`, columns, rows());
}

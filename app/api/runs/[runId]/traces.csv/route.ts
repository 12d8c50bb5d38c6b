import { createLoader } from "nuqs/server";
import { getDb } from "@/lib/db/client";
import { getRun } from "@/lib/db/queries/runs";
import { listTraces } from "@/lib/db/queries/traces";
import { csvResponse, toCsv } from "@/lib/metrics/csv";
import { tracesSearchParams } from "@/lib/url/runs";

const loadParams = createLoader(tracesSearchParams);

/** The run's questions table as CSV: every row that the page's filters select, all pages. */
export async function GET(request: Request, ctx: RouteContext<"/api/runs/[runId]/traces.csv">) {
  const { runId } = await ctx.params;
  const db = getDb();
  const run = await getRun(db, runId);
  if (!run) return Response.json({ error: `no run ${runId}` }, { status: 404 });
  const params = loadParams(new URL(request.url).searchParams);
  const { rows } = listTraces(db, runId, { ...params, page: 1, pageSize: 1_000_000 });
  const columns = ["question_id", "sample", "db_id", "difficulty", "steps", "tool_calls", "exploratory_calls", "gold_count", "over_exploration", "extra_tables", "empty_probes", "tokens", "ex_outcome", "recorded_correct", "status"];
  return csvResponse(`${run.name}-${run.system}-${run.model}-questions.csv`, toCsv(columns, rows.map((r) => [r.questionId, r.sample, r.dbId, r.difficulty, r.stepCount, r.toolCallCount, r.exploratoryCalls, r.goldCount, r.overExploration, r.extraTableCount, r.emptyProbeCount, r.tokens, r.exOutcome, r.recordedCorrect, r.status])));
}

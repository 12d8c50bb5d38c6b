import { connection } from "next/server";
import { getDb } from "@/lib/db/client";
import { listOverviewRuns } from "@/lib/db/queries/overview";
import { listTraceUnits } from "@/lib/db/queries/units";
import { csvResponse, toCsv } from "@/lib/metrics/csv";
import { buildOverview } from "@/lib/metrics/overview";

/** The experiment overview as CSV: one row per run, with intervals. */
export async function GET() {
  await connection();
  const db = getDb();
  const rows = buildOverview(listOverviewRuns(db), (id) => listTraceUnits(db, id)).flatMap((g) =>
    g.models.flatMap((m) => g.systems.flatMap((s) => (g.cells[m]?.[s] ?? []).map((c) => [
      g.group, m, s, c.name, c.runId, c.stats.questions, c.stats.ex?.estimate, c.stats.ex?.low, c.stats.ex?.high, c.stats.over?.estimate, c.stats.over?.low, c.stats.over?.high,
      c.stats.failedWithExtra, c.stats.inputTokens, c.stats.outputTokens, c.aggregates.cost, c.aggregates.directiveOverheadCost, c.aggregates.directiveRecall,
    ]))));
  return csvResponse("metron-overview.csv", toCsv(["dataset", "model", "system", "run", "run_id", "questions", "ex", "ex_low", "ex_high", "over_exploration", "over_low", "over_high", "failed_with_extra_tables", "input_tokens", "output_tokens", "cost_usd", "directive_overhead_usd", "directive_recall"], rows));
}

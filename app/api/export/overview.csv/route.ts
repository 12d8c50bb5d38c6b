import { connection } from "next/server";
import { getDb } from "@/lib/db/client";
import { listOverviewRuns } from "@/lib/db/queries/overview";
import { listTraceUnits } from "@/lib/db/queries/units";
import { csvResponse } from "@/lib/metrics/csv";
import { overviewTable } from "@/lib/metrics/exports";
import { buildOverview } from "@/lib/metrics/overview";

/** The experiment overview as CSV: one row per run, with intervals. */
export async function GET() {
  await connection();
  const db = getDb();
  const { columns, rows } = overviewTable(buildOverview(listOverviewRuns(db), (id) => listTraceUnits(db, id)));
  return csvResponse("metron-overview.csv", columns, rows);
}

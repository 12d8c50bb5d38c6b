import { connection } from "next/server";
import { getDb } from "@/lib/db/client";
import { getExperiment, loadOverview } from "@/lib/db/queries/overview";
import { csvResponse } from "@/lib/metrics/csv";
import { overviewTable } from "@/lib/metrics/exports";
import { loadExperimentsParams } from "@/lib/url/experiments";

/** The Experiments view as CSV (a saved experiment's, or the filtered default): one row per pooled cell, with its runs. */
export async function GET(request: Request) {
  await connection();
  const params = loadExperimentsParams(new URL(request.url).searchParams);
  const db = getDb();
  const saved = params.experiment ? getExperiment(db, params.experiment) : undefined;
  if (params.experiment && !saved)
    return Response.json({ error: `no experiment ${params.experiment}` }, { status: 404 });
  const { groups } = loadOverview(
    db,
    saved
      ? { runIds: saved.runIds }
      : { dataset: params.dataset, withoutDataset: params.all, archived: params.archived, sweeps: params.sweeps },
  );
  const { columns, rows } = overviewTable(groups);
  return csvResponse(saved ? `metron-experiment-${saved.name}.csv` : "metron-overview.csv", columns, rows);
}

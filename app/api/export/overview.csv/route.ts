import { connection } from "next/server";
import { getSql } from "@/lib/db/store";
import { getExperiment, loadOverview } from "@/lib/db/queries/overview";
import { csvResponse } from "@/lib/metrics/csv";
import { overviewTable } from "@/lib/metrics/exports";
import { loadExperimentsParams } from "@/lib/url/experiments";

/** The Experiments view as CSV (a saved experiment's, or the filtered default): one row per pooled cell, with its runs. */
export async function GET(request: Request) {
  await connection();
  const params = loadExperimentsParams(new URL(request.url).searchParams);
  const sql = await getSql();
  const saved = params.experiment ? await getExperiment(sql, params.experiment) : undefined;
  if (params.experiment && !saved)
    return Response.json({ error: `no experiment ${params.experiment}` }, { status: 404 });
  const { groups } = await loadOverview(
    sql,
    saved
      ? { runIds: saved.runIds }
      : { dataset: params.dataset, withoutDataset: params.all, archived: params.archived, sweeps: params.sweeps },
  );
  const { columns, rows } = overviewTable(groups);
  return csvResponse(saved ? `metron-experiment-${saved.name}.csv` : "metron-overview.csv", columns, rows);
}

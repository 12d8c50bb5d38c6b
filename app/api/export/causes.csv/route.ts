import { connection } from "next/server";
import { getSql } from "@/lib/db/store";
import { viewRunIds } from "@/lib/db/queries/overview";
import { countLabels } from "@/lib/labels/labels";
import { csvResponse } from "@/lib/metrics/csv";
import { causesTable } from "@/lib/metrics/failure-causes";
import { loadExperimentsParams } from "@/lib/url/experiments";

/** Failure causes (labelled traces per cause, system and model) of the Experiments view, as CSV. */
export async function GET(request: Request) {
  await connection();
  const params = loadExperimentsParams(new URL(request.url).searchParams);
  const sql = await getSql();
  const runIds = await viewRunIds(sql, params);
  if (!runIds) return Response.json({ error: `no experiment ${params.experiment}` }, { status: 404 });
  const { columns, rows } = causesTable(await countLabels(sql, runIds));
  return csvResponse("metron-failure-causes.csv", columns, rows);
}

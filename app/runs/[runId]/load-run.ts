import { cache } from "react";
import { getRun, getRunAggregates } from "@/lib/db/queries/runs";
import { listRunToolCounts, loadTraceUnits } from "@/lib/db/queries/units";
import { listDatasets } from "@/lib/db/queries/datasets";
import { searchRunTraceIds } from "@/lib/search";
import { getSql } from "@/lib/db/store";

/**
 * A run, read once per request: the metadata, the 404 check and the page's sections all ask for it, and React's
 * `cache` gives them the same answer without another round trip.
 */
export const loadRun = cache(async (runId: string) => getRun(await getSql(), runId));

/** What several sections of the run page show, read once per request (the sections stream apart). */
export const loadAggregates = cache(async (runId: string) => getRunAggregates(await getSql(), runId));
export const loadUnits = cache(async (runId: string) => loadTraceUnits(await getSql(), runId));
export const loadTools = cache(async (runId: string) => listRunToolCounts(await getSql(), runId));
export const loadDatasets = cache(async () => listDatasets(await getSql()));
/** The traces a search of the run matches (null without a search). */
export const loadTraceIds = cache(async (runId: string, q: string | null) =>
  q?.trim() ? searchRunTraceIds(await getSql(), runId, q) : null,
);

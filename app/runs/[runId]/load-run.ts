import { cache } from "react";
import { getRun } from "@/lib/db/queries/runs";
import { getSql } from "@/lib/db/store";

/**
 * A run, read once per request: the metadata, the 404 check and the page's sections all ask for it, and React's
 * `cache` gives them the same answer without another round trip.
 */
export const loadRun = cache(async (runId: string) => getRun(await getSql(), runId));

import type { Db } from "@/lib/db/client";
import type { RunAggregates } from "@/lib/metrics/run-metrics";
import { RUN_AGGREGATES } from "./metrics-sql";

export interface OverviewRun extends RunAggregates {
  id: string;
  name: string;
  system: string;
  model: string;
  group: string;
  datasetId: string | null;
  createdAt: string;
  simulated: number | null;
}

/** Every run with its aggregates, grouped by dataset (or benchmark name when no dataset is linked). */
export function listOverviewRuns(db: Db): OverviewRun[] {
  return db.$client.prepare(`SELECT r.id, r.name, r.system, r.model, r.dataset_id AS datasetId, r.created_at AS createdAt, json_extract(r.config, '$.simulated') AS simulated,
      coalesce(r.dataset_id, r.benchmark, '(no dataset)') AS "group", ${RUN_AGGREGATES}
    FROM runs r LEFT JOIN traces t ON t.run_id = r.id GROUP BY r.id ORDER BY "group", r.model, r.system, r.created_at DESC`).all() as OverviewRun[];
}

import type { Db } from "@/lib/db/client";
import type { Run } from "@/lib/db/schema";
import { compareRuns, type Comparison } from "@/lib/metrics/compare-runs";
import { listTraceUnits } from "./units";

export interface LoadedComparison {
  runs: Run[];
  missing: string[];
  baseline: number;
  comparison: Comparison | null;
}

/** Loads the runs named in the URL (unknown ids are reported) and compares them against the baseline. */
export function loadComparison(db: Db, runIds: string[], baselineId: string | null): LoadedComparison {
  const runs: Run[] = [];
  const missing: string[] = [];
  for (const id of [...new Set(runIds)]) {
    const run = db.query.runs.findFirst({ where: (r, { eq }) => eq(r.id, id) }).sync();
    if (run) runs.push(run);
    else missing.push(id);
  }
  const baseline = Math.max(
    0,
    runs.findIndex((r) => r.id === baselineId),
  );
  return {
    runs,
    missing,
    baseline,
    comparison:
      runs.length >= 2
        ? compareRuns(
            runs.map((r) => listTraceUnits(db, r.id)),
            baseline,
          )
        : null,
  };
}

export function listComparableRuns(
  db: Db,
): { id: string; name: string; system: string; model: string; group: string; traces: number }[] {
  return db.$client
    .prepare(
      `SELECT r.id, r.name, r.system, r.model, coalesce(r.dataset_id, r.benchmark, '(no dataset)') AS "group", count(t.id) AS traces
    FROM runs r LEFT JOIN traces t ON t.run_id = r.id GROUP BY r.id ORDER BY "group", r.model, r.system`,
    )
    .all() as never;
}

import type { Run } from "@/lib/db/schema";
import type { Sql } from "@/lib/db/sql";
import { compareRuns, type Comparison } from "@/lib/metrics/compare-runs";
import { getRun } from "./runs";
import { loadTraceUnits } from "./units";

export interface LoadedComparison {
  runs: Run[];
  missing: string[];
  baseline: number;
  comparison: Comparison | null;
}

/** Loads the runs named in the URL (unknown ids are reported) and compares them against the baseline. */
export async function loadComparison(sql: Sql, runIds: string[], baselineId: string | null): Promise<LoadedComparison> {
  const runs: Run[] = [];
  const missing: string[] = [];
  for (const id of [...new Set(runIds)]) {
    const run = await getRun(sql, id);
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
      runs.length >= 2 ? compareRuns(await Promise.all(runs.map((r) => loadTraceUnits(sql, r.id))), baseline) : null,
  };
}

export async function listComparableRuns(
  sql: Sql,
): Promise<{ id: string; name: string; system: string; model: string; group: string; traces: number }[]> {
  return (await sql.all(`SELECT r.id, r.name, r.system, r.model, coalesce(r.dataset_id, r.benchmark, '(no dataset)') AS "group", count(t.id) AS traces
    FROM runs r LEFT JOIN traces t ON t.run_id = r.id GROUP BY r.id ORDER BY ${sql.d.binary("coalesce(r.dataset_id, r.benchmark, '(no dataset)')")}, ${sql.d.binary("r.model")}, ${sql.d.binary("r.system")}`)) as never;
}

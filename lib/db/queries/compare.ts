import type { Run } from "@/lib/db/schema";
import type { Sql } from "@/lib/db/sql";
import { byCodePoint, runGroup } from "@/lib/db/typed-sql";
import { binary, many, qb } from "@/lib/db/typed";
import { compareRuns, type Comparison } from "@/lib/metrics/compare-runs";
import { getRun } from "./runs";
import { loadTraceUnits } from "./units";
import { cachedByRuns } from "./run-cache";
import { readRunTotals } from "@/lib/db/run-totals";

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
    // Memoised by the runs' versions and the baseline: reloading the page, or paging its table, computes nothing.
    comparison:
      runs.length >= 2
        ? await cachedByRuns(
            sql,
            runs.map((r) => r.id),
            `compare:${runs.map((r) => r.id).join(",")}:${baseline}`,
            async () => compareRuns(await Promise.all(runs.map((r) => loadTraceUnits(sql, r.id))), baseline),
          )
        : null,
  };
}

export async function listComparableRuns(
  sql: Sql,
): Promise<{ id: string; name: string; system: string; model: string; group: string; traces: number }[]> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("runs as r")
      .select((eb) => [
        "r.id",
        "r.name",
        "r.system",
        "r.model",
        runGroup(eb, "r.dataset_id", "r.benchmark").as("group"),
      ])
      .orderBy((eb) => byCodePoint(sql, runGroup(eb, "r.dataset_id", "r.benchmark")))
      .orderBy(binary(sql, "r.model"))
      .orderBy(binary(sql, "r.system")),
  );
  // Trace counts from the runs' totals, not a count of the store's traces.
  const totals = await readRunTotals(
    sql,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, traces: totals.get(r.id)?.traces ?? 0 }));
}

import type { Sql } from "@/lib/db/sql";
import { precomputeRunViews, runsWithoutViews } from "@/lib/views/ahead";

/**
 * After a command that wrote runs (`"all"`: every run of the store, after an import): their pages' views computed
 * now and stored (lib/views/ahead.ts), so the server's first view of them reads them. `METRON_VIEWS_AHEAD=0` leaves
 * them to the first view.
 */
export async function computeViewsAhead(sql: Sql, runIds: string[] | "all", quiet: boolean): Promise<void> {
  if (process.env.METRON_VIEWS_AHEAD === "0") return;
  const started = performance.now();
  const done = await precomputeRunViews(
    sql,
    await runsWithoutViews(sql, runIds === "all" ? undefined : [...new Set(runIds)]),
  );
  if (done && !quiet)
    console.log(
      `computed the views of ${done} run(s) ahead in ${((performance.now() - started) / 1000).toFixed(1)} s (their pages read them)`,
    );
}

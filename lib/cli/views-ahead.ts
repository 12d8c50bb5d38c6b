import type { Sql } from "@/lib/db/sql";
import { precomputeExperimentViews, precomputeRunViews, runsWithoutViews, viewsAheadSaid } from "@/lib/views/ahead";

/**
 * After a command that wrote runs (`"all"`: every run of the store, after an import): their pages' views computed
 * now and stored (lib/views/ahead.ts), so the server's first view of them reads them. `METRON_VIEWS_AHEAD=0` leaves
 * them to the first view. A failure here is a warning, never the command's failure.
 */
export async function computeViewsAhead(sql: Sql, runIds: string[] | "all", quiet: boolean): Promise<void> {
  if (process.env.METRON_VIEWS_AHEAD === "0") return;
  const started = performance.now();
  let done: number;
  let views: number;
  try {
    done = await precomputeRunViews(
      sql,
      await runsWithoutViews(sql, runIds === "all" ? undefined : [...new Set(runIds)]),
    );
    // The Experiments page's default views pool every run: those the command changed are in them.
    views = await precomputeExperimentViews(sql);
  } catch (e) {
    // What the command wrote is committed: its report still prints and it still succeeds (an import retried
    // after a reported failure would be refused by the store it filled). The pages compute what is missing.
    console.error(
      `warning: the runs' views could not be computed ahead (${(e as Error).message}); their first view computes them`,
    );
    return;
  }
  if ((done || views) && !quiet) console.log(`${viewsAheadSaid(done, views, started)} (their pages read them)`);
}

import type { Sql } from "@/lib/db/sql";
import { computeDirectiveSavings, type DirectiveSavings } from "@/lib/environment/directive-savings";
import { cachedByRun } from "./run-cache";

/** The directive-savings estimate of a run without directives, memoised by run version (it computes directives). */
export function getDirectiveSavings(sql: Sql, runId: string): Promise<DirectiveSavings | null> {
  return cachedByRun(sql, runId, "directive-savings", () => computeDirectiveSavings(sql, runId));
}

import type { Db } from "@/lib/db/client";
import { computeDirectiveSavings, type DirectiveSavings } from "@/lib/environment/directive-savings";
import { memoByRun } from "./run-cache";

/** The directive-savings estimate of a run without directives, memoised by run version (it computes directives). */
export function getDirectiveSavings(db: Db, runId: string): Promise<DirectiveSavings | null> {
  return memoByRun(db, runId, "directive-savings", () => computeDirectiveSavings(db.$client, runId));
}

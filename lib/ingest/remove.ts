/**
 * Deleting stored traces — a whole run, or some traces of a run (a job's earlier attempt, replaced by its rerun) —
 * with their steps, search documents and the blobs no other step uses; what stays is measured again.
 */
import type { Sql } from "@/lib/db/sql";
import { many, one, qb, write } from "@/lib/db/typed";
import { selectedTraceIds, type TraceSelection } from "@/lib/db/typed-sql";
import { removeTracesFromSearch } from "@/lib/search";
import { recomputeRun } from "./recompute";
import { runOf } from "./run-record";

/** Deletes traces with their steps and the blobs no other step uses (inside the caller's transaction). */
async function removeTraces(tx: Sql, selection: TraceSelection) {
  await removeTracesFromSearch(tx, selection);
  const q = qb(tx);
  const blobs = (
    await many(
      tx,
      q
        .selectFrom("steps as s")
        .select("s.result_blob as h")
        .distinct()
        .where("s.trace_id", "in", selectedTraceIds(tx, selection))
        .where("s.result_blob", "is not", null),
    )
  ).map((r) => r.h!);
  const steps = (await write(tx, q.deleteFrom("steps").where("trace_id", "in", selectedTraceIds(tx, selection))))
    .changes;
  const traces = (await write(tx, q.deleteFrom("traces").where("id", "in", selectedTraceIds(tx, selection)))).changes;
  let freed = 0;
  for (const h of blobs)
    freed += (
      await write(
        tx,
        q
          .deleteFrom("blobs")
          .where("hash", "=", h)
          .where(({ not, exists, selectFrom }) =>
            not(exists(selectFrom("steps").select("steps.seq").where("steps.result_blob", "=", h))),
          ),
      )
    ).changes;
  return { traces, steps, blobs: freed };
}

/** Deletes a run with its traces, steps, tool counts and the blobs no other step uses, in one transaction. */
export async function deleteRun(sql: Sql, runId: string): Promise<{ traces: number; steps: number; blobs: number }> {
  await runOf(sql, runId);
  return sql.transaction(async (tx) => {
    const removed = await removeTraces(tx, { runId });
    for (const table of ["run_tool_counts", "run_changes", "run_totals"] as const)
      await write(tx, qb(tx).deleteFrom(table).where("run_id", "=", runId));
    await write(tx, qb(tx).deleteFrom("runs").where("id", "=", runId));
    return removed;
  });
}

/**
 * Deletes some traces of a run (a job's earlier attempt, replaced by its rerun) and recounts the run's tools and
 * metrics from what stays.
 */
export async function deleteTraces(sql: Sql, runId: string, traceIds: string[]): Promise<number> {
  if (!traceIds.length) return 0;
  const removed = await sql.transaction(async (tx) => (await removeTraces(tx, { traceIds })).traces);
  if (await one(sql, qb(sql).selectFrom("runs").select("id").where("id", "=", runId))) await recomputeRun(sql, runId);
  return removed;
}

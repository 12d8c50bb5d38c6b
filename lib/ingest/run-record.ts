/** What every curation of a run starts from: the run as stored, its history of changes, and the error they raise. */
import type { Sql } from "@/lib/db/sql";
import { one, qb, write } from "@/lib/db/typed";

export class CurationError extends Error {}

/** Records a change in the run's history (`run_changes`), with who made it. */
export const recordChange = async (sql: Sql, runId: string, who: string, change: string) =>
  await write(sql, qb(sql).insertInto("run_changes").values({ run_id: runId, who, change }));

/** The run's identity and curation columns; a CurationError when there is no such run. */
export async function runOf(sql: Sql, runId: string) {
  const run = await one(
    sql,
    qb(sql)
      .selectFrom("runs")
      .select([
        "id",
        "name",
        "system",
        "model",
        "description",
        "tags",
        "dataset_id as datasetId",
        "tool_roles as toolRoles",
        "archived_at as archivedAt",
      ])
      .where("id", "=", runId),
  );
  if (!run) throw new CurationError(`no run ${runId}`);
  return run;
}

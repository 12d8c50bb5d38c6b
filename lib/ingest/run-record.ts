/** What every curation of a run starts from: the run as stored, its history of changes, and the error they raise. */
import type { Sql } from "@/lib/db/sql";
import { many, one, qb, write } from "@/lib/db/typed";
import { inJsonArray } from "@/lib/db/typed-sql";
import type { RunRef } from "./upload-writer";

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

/** The ids of the runs, other than `except`, with this name, system and model as the store shows them. */
export async function runsLike(
  sql: Sql,
  run: { name: string; system: string; model: string },
  except: string,
): Promise<string[]> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("runs")
      .select("id")
      .where("name", "=", run.name)
      .where("system", "=", run.system)
      .where("model", "=", run.model)
      .where("id", "!=", except),
  );
  return rows.map((r) => r.id);
}

/**
 * An upload's runs as the store shows them. A run's id derives from the name, system and model of its first upload,
 * and a rename keeps it: traces uploaded under the old name join the renamed run, which the report names, saying
 * so. A new run that looks like another one (renamed to this name since) is said too: the two stay apart.
 */
export async function runIdentityNotices(sql: Sql, runs: RunRef[]): Promise<RunRef[]> {
  if (!runs.length) return runs;
  const stored = new Map(
    (
      await many(
        sql,
        qb(sql)
          .selectFrom("runs")
          .select(["id", "name", "system", "model"])
          .where((eb) =>
            inJsonArray(
              sql,
              eb,
              "id",
              runs.map((r) => r.id),
            ),
          ),
      )
    ).map((r) => [r.id, r]),
  );
  const out: RunRef[] = [];
  for (const ref of runs) {
    const s = stored.get(ref.id);
    if (s && (s.name !== ref.name || s.system !== ref.system || s.model !== ref.model)) {
      out.push({
        ...ref,
        name: s.name,
        system: s.system,
        model: s.model,
        notice: `uploaded as "${ref.name}" · ${ref.system} · ${ref.model}, what this run was called before it was renamed: the traces joined it`,
      });
      continue;
    }
    const twins = await runsLike(sql, ref, ref.id);
    out.push(
      twins.length
        ? {
            ...ref,
            notice: `run ${twins.join(", ")} was renamed to the same name, system and model: a run is found by the name, system and model of its first upload, so the two stay apart: rename one of them`,
          }
        : ref,
    );
  }
  return out;
}

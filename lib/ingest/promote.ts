/**
 * Promoting a rerun into a named run of its system, model and dataset (the question page's "promote"): the trace
 * becomes that run's next sample of its question, and both runs' history says so.
 */
import type { Sql } from "@/lib/db/sql";
import { count, countN, one, qb, write } from "@/lib/db/typed";
import { jsonValue } from "@/lib/db/typed-sql";
import { runIdOf } from "@/lib/trace/hash";
import { recomputeRun } from "./recompute";
import { deleteRun } from "./remove";
import { CurationError, recordChange as record } from "./run-record";

/**
 * Promotes a rerun (a trace of a run of reruns) into a named run of its system, model and dataset, as that run's next
 * sample of the question: from then on it counts in that run's figures and in any view that includes the run. The run
 * is created when it does not exist; the trace keeps its steps, metrics and labels. Recorded in both runs' history.
 */
export async function promoteTrace(
  sql: Sql,
  traceId: string,
  runName: string,
  who: string,
): Promise<{ runId: string; sample: number }> {
  const name = runName.trim().slice(0, 200);
  if (!name) throw new CurationError("the run needs a name");
  const t = await one(
    sql,
    qb(sql)
      .selectFrom("traces as t")
      .innerJoin("runs as r", "r.id", "t.run_id")
      .select((eb) => [
        "t.id",
        "t.question_id as questionId",
        "t.run_id as runId",
        "r.system",
        "r.model",
        "r.benchmark",
        "r.dataset_id as datasetId",
        eb.fn.coalesce(jsonValue(sql, eb, "r.config", "reruns"), eb.lit(0)).as("reruns"),
        jsonValue(sql, eb, "r.config", "simulated").as("simulated"),
      ])
      .where("t.id", "=", traceId),
  );
  if (!t) throw new CurationError(`no trace ${traceId}`);
  if (!Number(t.reruns))
    throw new CurationError("only a rerun can be promoted: this trace already belongs to a run of its own");
  const runId = runIdOf({ name, system: t.system, model: t.model });
  if (runId === t.runId) throw new CurationError("that is the run it is in");
  const target = await one(
    sql,
    qb(sql).selectFrom("runs").select(["dataset_id as datasetId", "config"]).where("id", "=", runId),
  );
  if (target && target.datasetId !== t.datasetId)
    throw new CurationError(`run "${name}" is of another dataset (${target.datasetId ?? "none"})`);
  if (target && JSON.parse(target.config ?? "{}").reruns) throw new CurationError(`run "${name}" is a run of reruns`);
  const sample = await sql.transaction(async (sql) => {
    if (!target)
      await write(
        sql,
        qb(sql)
          .insertInto("runs")
          .values({
            id: runId,
            name,
            system: t.system,
            model: t.model,
            benchmark: t.benchmark,
            config: JSON.stringify({ promoted: true, ...(Number(t.simulated) ? { simulated: true } : {}) }),
            dataset_id: t.datasetId,
            description: "Reruns promoted from the question pages.",
          }),
      );
    const next = Number(
      (
        await one(
          sql,
          qb(sql)
            .selectFrom("traces")
            .select((eb) => eb.fn.coalesce(eb(eb.fn.max("sample"), "+", 1), eb.lit(0)).as("n"))
            .where("run_id", "=", runId)
            .where("question_id", "=", t.questionId),
        )
      )?.n ?? 0,
    );
    await write(sql, qb(sql).updateTable("traces").set({ run_id: runId, sample: next }).where("id", "=", traceId));
    await record(sql, runId, who, `promoted the rerun of question ${t.questionId} (trace ${traceId}) into this run`);
    await record(sql, t.runId, who, `promoted its trace of question ${t.questionId} into run "${name}"`);
    return next;
  });
  // Tool counts and versions of both runs follow their traces; a run of reruns left empty goes (issue 30: an empty
  // "Reruns" run stayed in the list). The next rerun of its system and model makes it again.
  const left = await count(sql, qb(sql).selectFrom("traces").select(countN).where("run_id", "=", t.runId));
  if (left === 0) await deleteRun(sql, t.runId);
  else await recomputeRun(sql, t.runId);
  await recomputeRun(sql, runId);
  return { runId, sample };
}

/**
 * Curation of a stored run (browser and CLI alike): identity (name, system, model), description and tags, the
 * dataset link (its traces linked to the dataset's questions by the upload's rules, then measured again), the
 * tool → role mapping (previewed, then recomputed), archive, and delete. Every change is recorded in
 * `run_changes` with its time and who made it (an access token's name, "local" or "cli"). Traces and steps are
 * never rewritten except by delete; derived columns are recomputed.
 */
import type { Updateable } from "kysely";
import type { Sql } from "@/lib/db/sql";
import { count, countN, many, one, qb, write, type Tables } from "@/lib/db/typed";
import { inJsonArray, jsonValue, selectedTraceIds, type TraceSelection } from "@/lib/db/typed-sql";
import { randomUUID } from "node:crypto";
import { stepRoles, type StepRole } from "@/lib/sql/classify-step";
import { linkQuestion } from "@/lib/trace/adapters/link-questions";
import { mergeRoles } from "./measure";
import { recomputeRun } from "./recompute";
import { runIdOf } from "@/lib/trace/hash";
import { removeTracesFromSearch } from "@/lib/search";

export class CurationError extends Error {}

export interface RunIdentityEdit {
  name?: string;
  system?: string;
  model?: string;
  description?: string | null;
  tags?: string[];
}

const record = async (sql: Sql, runId: string, who: string, change: string) =>
  await write(sql, qb(sql).insertInto("run_changes").values({ run_id: runId, who, change }));

async function runOf(sql: Sql, runId: string) {
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

export async function editRun(sql: Sql, runId: string, edit: RunIdentityEdit, who: string): Promise<string[]> {
  const run = await runOf(sql, runId);
  const changes: string[] = [];
  const set: Updateable<Tables["runs"]> = {};
  for (const key of ["name", "system", "model"] as const) {
    const v = edit[key]?.trim();
    if (v === undefined) continue;
    if (!v) throw new CurationError(`${key} cannot be empty`);
    if (v.length > 500) throw new CurationError(`${key} is over 500 characters`);
    if (v !== run[key]) {
      set[key] = v;
      changes.push(`${key}: "${run[key]}" → "${v}"`);
    }
  }
  if (edit.description !== undefined && (edit.description?.trim() || null) !== run.description) {
    set.description = edit.description?.trim() || null;
    changes.push("description edited");
  }
  if (edit.tags !== undefined) {
    const tags = [...new Set(edit.tags.map((t) => t.trim()).filter(Boolean))].sort();
    const before = run.tags ? (JSON.parse(run.tags) as string[]) : [];
    if (JSON.stringify(tags) !== JSON.stringify(before)) {
      set.tags = JSON.stringify(tags);
      changes.push(`tags: ${tags.join(", ") || "none"}`);
    }
  }
  if (changes.length === 0) return [];
  await sql.transaction(async (sql) => {
    await write(
      sql,
      qb(sql)
        .updateTable("runs")
        .set((eb) => ({ ...set, version: eb("version", "+", 1) }))
        .where("id", "=", runId),
    );
    for (const c of changes) await record(sql, runId, who, c);
  });
  return changes;
}

/**
 * Links the run to a dataset (or unlinks it with null): each trace keeps its question id when the dataset has it,
 * else is matched by its question text (exactly, normalised, contained) as at upload; then everything is measured
 * again. Returns how many of the run's traces are linked to a question of the dataset.
 */
export async function linkRunDataset(
  sql: Sql,
  runId: string,
  datasetRef: string | null,
  who: string,
): Promise<{ traces: number; linked: number }> {
  const run = await runOf(sql, runId);
  let datasetId: string | null = null;
  if (datasetRef) {
    const d = await one(
      sql,
      qb(sql)
        .selectFrom("datasets")
        .select("id")
        .where((eb) => eb.or([eb("id", "=", datasetRef), eb("name", "=", datasetRef)])),
    );
    if (!d) throw new CurationError(`no dataset named "${datasetRef}"`);
    datasetId = d.id;
  }
  const traces = await many(
    sql,
    qb(sql)
      .selectFrom("traces")
      .select(["id", "question_id as questionId", "question_text as text"])
      .where("run_id", "=", runId),
  );
  let linked = 0;
  const relinks: [string, string][] = [];
  if (datasetId) {
    const questions = await many(
      sql,
      qb(sql).selectFrom("questions").select(["question_id as id", "text"]).where("dataset_id", "=", datasetId),
    );
    const ids = new Set(questions.map((q) => q.id));
    for (const t of traces) {
      if (ids.has(t.questionId)) {
        linked++;
        continue;
      }
      const link = linkQuestion(undefined, t.text ?? undefined, undefined, questions);
      if (link.method !== "unlinked") {
        linked++;
        relinks.push([link.id, t.id]);
      }
    }
  }
  await sql.transaction(async (sql) => {
    await write(
      sql,
      qb(sql)
        .updateTable("runs")
        .set((eb) => ({ dataset_id: datasetId, version: eb("version", "+", 1) }))
        .where("id", "=", runId),
    );
    // A relinked trace whose (question, sample) is taken by another trace of the run keeps its id: nothing is merged.
    for (const [questionId, traceId] of relinks)
      await write(sql, qb(sql).updateTable("traces").set({ question_id: questionId }).where("id", "=", traceId));
    // What the traces took from the dataset they leave (its gold SQL, evidence, difficulty) goes with it; what a
    // trace's own file said, where it differs, stays.
    const left = run.datasetId;
    if (left && left !== datasetId)
      for (const column of ["gold_sql", "evidence", "difficulty"] as const)
        await write(
          sql,
          qb(sql)
            .updateTable("traces")
            .set({ [column]: null })
            .where("run_id", "=", runId)
            .where((eb) =>
              eb(
                `traces.${column}`,
                "=",
                eb
                  .selectFrom("questions as q")
                  .select(`q.${column}`)
                  .where("q.dataset_id", "=", left)
                  .whereRef("q.question_id", "=", "traces.question_id"),
              ),
            ),
        );
    await record(
      sql,
      runId,
      who,
      datasetId
        ? `linked to dataset ${datasetId}: ${linked} of ${traces.length} traces linked to its questions`
        : `unlinked from dataset ${run.datasetId ?? "(none)"}`,
    );
  });
  await recomputeRun(sql, runId);
  return { traces: traces.length, linked };
}

export function parseRoles(value: unknown): Record<string, StepRole> {
  if (!value || typeof value !== "object" || Array.isArray(value))
    throw new CurationError('roles must be a JSON object {"tool": "role"}');
  const out: Record<string, StepRole> = {};
  for (const [tool, role] of Object.entries(value)) {
    if (!(stepRoles as readonly string[]).includes(role as string))
      throw new CurationError(`role of ${tool}: "${String(role)}" is not one of ${stepRoles.join(", ")}`);
    out[tool] = role as StepRole;
  }
  return out;
}

/** How many of the run's tool calls a new mapping would move to another role, per tool. */
export async function previewRoles(
  sql: Sql,
  runId: string,
  roles: Record<string, StepRole>,
): Promise<{ changed: number; tools: { tool: string; calls: number; from: string; to: string }[] }> {
  await runOf(sql, runId);
  const merged = mergeRoles(roles);
  const counts = await many(
    sql,
    qb(sql)
      .selectFrom("run_tool_counts")
      .select(["tool", "role", "calls"])
      .where("run_id", "=", runId)
      .orderBy("calls", "desc"),
  );
  const tools = counts
    .map((c) => ({ tool: c.tool, calls: c.calls, from: c.role, to: merged[c.tool] ?? "other" }))
    .filter((c) => c.from !== c.to);
  return { changed: tools.reduce((s, t) => s + t.calls, 0), tools };
}

export async function setRunRoles(
  sql: Sql,
  runId: string,
  roles: Record<string, StepRole>,
  who: string,
): Promise<{ changed: number }> {
  const preview = await previewRoles(sql, runId, roles);
  await sql.transaction(async (sql) => {
    await write(
      sql,
      qb(sql)
        .updateTable("runs")
        .set({ tool_roles: Object.keys(roles).length ? JSON.stringify(roles) : null })
        .where("id", "=", runId),
    );
    await record(
      sql,
      runId,
      who,
      `tool roles: ${
        Object.entries(roles)
          .map(([t, r]) => `${t} → ${r}`)
          .join(", ") || "defaults"
      } (${preview.changed} calls changed role)`,
    );
  });
  await recomputeRun(sql, runId);
  return { changed: preview.changed };
}

export async function archiveRun(sql: Sql, runId: string, archived: boolean, who: string): Promise<void> {
  const run = await runOf(sql, runId);
  if (Boolean(run.archivedAt) === archived) return;
  await sql.transaction(async (sql) => {
    await write(
      sql,
      qb(sql)
        .updateTable("runs")
        .set((eb) => ({ archived_at: archived ? new Date().toISOString() : null, version: eb("version", "+", 1) }))
        .where("id", "=", runId),
    );
    await record(sql, runId, who, archived ? "archived" : "unarchived");
  });
}

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
    for (const table of ["run_tool_counts", "run_changes"] as const)
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

/** Saves a named experiment: exactly these runs (unknown ids dropped), whose figures then change only with them. */
export async function createExperiment(sql: Sql, name: string, runIds: string[]): Promise<string> {
  const clean = name.trim().slice(0, 200);
  if (!clean || runIds.length === 0) throw new CurationError("an experiment needs a name and at least one run");
  const known = await many(
    sql,
    qb(sql)
      .selectFrom("runs")
      .select(["id", "dataset_id as d"])
      .where((eb) => inJsonArray(sql, eb, "id", runIds)),
  );
  if (known.length === 0) throw new CurationError("none of these runs exists");
  const datasets = [...new Set(known.map((r) => r.d))];
  const id = randomUUID().slice(0, 8);
  await write(
    sql,
    qb(sql)
      .insertInto("experiments")
      .values({
        id,
        name: clean,
        dataset_id: datasets.length === 1 ? datasets[0] : null,
        run_ids: JSON.stringify(known.map((r) => r.id)),
      }),
  );
  return id;
}

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

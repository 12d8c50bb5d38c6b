/**
 * Curation of a stored run (browser and CLI alike): identity (name, system, model), description and tags, the
 * dataset link (its traces linked to the dataset's questions by the upload's rules, then measured again), the
 * tool → role mapping (previewed, then recomputed), archive, and delete. Every change is recorded in
 * `run_changes` with its time and who made it (an access token's name, "local" or "cli"). Traces and steps are
 * never rewritten except by delete; derived columns are recomputed.
 */
import { type Param, type Sql } from "@/lib/db/sql";
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
  await sql.run("INSERT INTO run_changes (run_id, who, change) VALUES (?, ?, ?)", [runId, who, change]);

async function runOf(sql: Sql, runId: string) {
  const run = (await sql.get(
    "SELECT id, name, system, model, description, tags, dataset_id AS datasetId, tool_roles AS toolRoles, archived_at AS archivedAt FROM runs WHERE id = ?",
    [runId],
  )) as
    | {
        id: string;
        name: string;
        system: string;
        model: string;
        description: string | null;
        tags: string | null;
        datasetId: string | null;
        toolRoles: string | null;
        archivedAt: string | null;
      }
    | undefined;
  if (!run) throw new CurationError(`no run ${runId}`);
  return run;
}

export async function editRun(sql: Sql, runId: string, edit: RunIdentityEdit, who: string): Promise<string[]> {
  const run = await runOf(sql, runId);
  const changes: string[] = [];
  const set: [string, Param][] = [];
  for (const key of ["name", "system", "model"] as const) {
    const v = edit[key]?.trim();
    if (v === undefined) continue;
    if (!v) throw new CurationError(`${key} cannot be empty`);
    if (v.length > 500) throw new CurationError(`${key} is over 500 characters`);
    if (v !== run[key]) {
      set.push([key, v]);
      changes.push(`${key}: "${run[key]}" → "${v}"`);
    }
  }
  if (edit.description !== undefined && (edit.description?.trim() || null) !== run.description) {
    set.push(["description", edit.description?.trim() || null]);
    changes.push("description edited");
  }
  if (edit.tags !== undefined) {
    const tags = [...new Set(edit.tags.map((t) => t.trim()).filter(Boolean))].sort();
    const before = run.tags ? (JSON.parse(run.tags) as string[]) : [];
    if (JSON.stringify(tags) !== JSON.stringify(before)) {
      set.push(["tags", JSON.stringify(tags)]);
      changes.push(`tags: ${tags.join(", ") || "none"}`);
    }
  }
  if (set.length === 0) return [];
  await sql.transaction(async (sql) => {
    await sql.run(`UPDATE runs SET ${set.map(([k]) => `${k} = ?`).join(", ")}, version = version + 1 WHERE id = ?`, [
      ...set.map(([, v]) => v),
      runId,
    ]);
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
    const d = (await sql.get("SELECT id FROM datasets WHERE id = ? OR name = ?", [datasetRef, datasetRef])) as
      { id: string } | undefined;
    if (!d) throw new CurationError(`no dataset named "${datasetRef}"`);
    datasetId = d.id;
  }
  const traces = (await sql.all(
    "SELECT id, question_id AS questionId, question_text AS text FROM traces WHERE run_id = ?",
    [runId],
  )) as { id: string; questionId: string; text: string | null }[];
  let linked = 0;
  const relinks: [string, string][] = [];
  if (datasetId) {
    const questions = (await sql.all("SELECT question_id AS id, text FROM questions WHERE dataset_id = ?", [
      datasetId,
    ])) as { id: string; text: string }[];
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
    await sql.run("UPDATE runs SET dataset_id = ?, version = version + 1 WHERE id = ?", [datasetId, runId]);
    // A relinked trace whose (question, sample) is taken by another trace of the run keeps its id: nothing is merged.
    for (const [questionId, traceId] of relinks)
      await sql.run("UPDATE traces SET question_id = ? WHERE id = ?", [questionId, traceId]);
    // What the traces took from the dataset they leave (its gold SQL, evidence, difficulty) goes with it; what a
    // trace's own file said, where it differs, stays.
    if (run.datasetId && run.datasetId !== datasetId)
      for (const column of ["gold_sql", "evidence", "difficulty"])
        await sql.run(
          `UPDATE traces SET ${column} = NULL WHERE run_id = ? AND ${column} = (SELECT q.${column} FROM questions q WHERE q.dataset_id = ? AND q.question_id = traces.question_id)`,
          [runId, run.datasetId],
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
  const counts = (await sql.all("SELECT tool, role, calls FROM run_tool_counts WHERE run_id = ? ORDER BY calls DESC", [
    runId,
  ])) as { tool: string; role: string; calls: number }[];
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
    await sql.run("UPDATE runs SET tool_roles = ? WHERE id = ?", [
      Object.keys(roles).length ? JSON.stringify(roles) : null,
      runId,
    ]);
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
    await sql.run("UPDATE runs SET archived_at = ?, version = version + 1 WHERE id = ?", [
      archived ? new Date().toISOString() : null,
      runId,
    ]);
    await record(sql, runId, who, archived ? "archived" : "unarchived");
  });
}

/** Deletes traces with their steps and the blobs no other step uses (inside the caller's transaction). */
async function removeTraces(tx: Sql, where: string, params: string[]) {
  await removeTracesFromSearch(tx, where, params);
  const blobs = (
    await tx.all<{ h: string }>(
      `SELECT DISTINCT s.result_blob AS h FROM steps s WHERE s.trace_id IN (SELECT id FROM traces WHERE ${where}) AND s.result_blob IS NOT NULL`,
      params,
    )
  ).map((r) => r.h);
  const steps = (await tx.run(`DELETE FROM steps WHERE trace_id IN (SELECT id FROM traces WHERE ${where})`, params))
    .changes;
  const traces = (await tx.run(`DELETE FROM traces WHERE ${where}`, params)).changes;
  let freed = 0;
  for (const h of blobs)
    freed += (
      await tx.run("DELETE FROM blobs WHERE hash = ? AND NOT EXISTS (SELECT 1 FROM steps WHERE result_blob = ?)", [
        h,
        h,
      ])
    ).changes;
  return { traces, steps, blobs: freed };
}

/** Deletes a run with its traces, steps, tool counts and the blobs no other step uses, in one transaction. */
export async function deleteRun(sql: Sql, runId: string): Promise<{ traces: number; steps: number; blobs: number }> {
  await runOf(sql, runId);
  return sql.transaction(async (tx) => {
    const removed = await removeTraces(tx, "run_id = ?", [runId]);
    for (const table of ["run_tool_counts", "run_changes"])
      await tx.run(`DELETE FROM ${table} WHERE run_id = ?`, [runId]);
    await tx.run("DELETE FROM runs WHERE id = ?", [runId]);
    return removed;
  });
}

/**
 * Deletes some traces of a run (a job's earlier attempt, replaced by its rerun) and recounts the run's tools and
 * metrics from what stays.
 */
export async function deleteTraces(sql: Sql, runId: string, traceIds: string[]): Promise<number> {
  if (!traceIds.length) return 0;
  const removed = await sql.transaction(
    async (tx) => (await removeTraces(tx, `id IN (${traceIds.map(() => "?").join(",")})`, traceIds)).traces,
  );
  if (await sql.get("SELECT 1 AS one FROM runs WHERE id = ?", [runId])) await recomputeRun(sql, runId);
  return removed;
}

/** Saves a named experiment: exactly these runs (unknown ids dropped), whose figures then change only with them. */
export async function createExperiment(sql: Sql, name: string, runIds: string[]): Promise<string> {
  const clean = name.trim().slice(0, 200);
  if (!clean || runIds.length === 0) throw new CurationError("an experiment needs a name and at least one run");
  const known = (await sql.all(
    `SELECT id, dataset_id AS d FROM runs WHERE id IN (${runIds.map(() => "?").join(",")})`,
    runIds,
  )) as { id: string; d: string | null }[];
  if (known.length === 0) throw new CurationError("none of these runs exists");
  const datasets = [...new Set(known.map((r) => r.d))];
  const id = randomUUID().slice(0, 8);
  await sql.run("INSERT INTO experiments (id, name, dataset_id, run_ids) VALUES (?, ?, ?, ?)", [
    id,
    clean,
    datasets.length === 1 ? datasets[0] : null,
    JSON.stringify(known.map((r) => r.id)),
  ]);
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
  const t = (await sql.get(
    `SELECT t.id, t.question_id AS questionId, t.run_id AS runId, r.system, r.model, r.benchmark, r.dataset_id AS datasetId,
         coalesce(${sql.d.jsonValue("r.config", "reruns")}, 0) AS reruns, ${sql.d.jsonValue("r.config", "simulated")} AS simulated
       FROM traces t JOIN runs r ON r.id = t.run_id WHERE t.id = ?`,
    [traceId],
  )) as
    | {
        id: string;
        questionId: string;
        runId: string;
        system: string;
        model: string;
        benchmark: string | null;
        datasetId: string | null;
        reruns: number;
        simulated: number | null;
      }
    | undefined;
  if (!t) throw new CurationError(`no trace ${traceId}`);
  if (!t.reruns)
    throw new CurationError("only a rerun can be promoted: this trace already belongs to a run of its own");
  const runId = runIdOf({ name, system: t.system, model: t.model });
  if (runId === t.runId) throw new CurationError("that is the run it is in");
  const target = (await sql.get("SELECT dataset_id AS datasetId, config FROM runs WHERE id = ?", [runId])) as
    { datasetId: string | null; config: string | null } | undefined;
  if (target && target.datasetId !== t.datasetId)
    throw new CurationError(`run "${name}" is of another dataset (${target.datasetId ?? "none"})`);
  if (target && JSON.parse(target.config ?? "{}").reruns) throw new CurationError(`run "${name}" is a run of reruns`);
  const sample = await sql.transaction(async (sql) => {
    if (!target)
      await sql.run(
        "INSERT INTO runs (id, name, system, model, benchmark, config, dataset_id, description) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [
          runId,
          name,
          t.system,
          t.model,
          t.benchmark,
          JSON.stringify({ promoted: true, ...(t.simulated ? { simulated: true } : {}) }),
          t.datasetId,
          "Reruns promoted from the question pages.",
        ],
      );
    const next = (
      (await sql.get("SELECT coalesce(max(sample) + 1, 0) AS n FROM traces WHERE run_id = ? AND question_id = ?", [
        runId,
        t.questionId,
      ])) as { n: number }
    ).n;
    await sql.run("UPDATE traces SET run_id = ?, sample = ? WHERE id = ?", [runId, next, traceId]);
    await record(sql, runId, who, `promoted the rerun of question ${t.questionId} (trace ${traceId}) into this run`);
    await record(sql, t.runId, who, `promoted its trace of question ${t.questionId} into run "${name}"`);
    return next;
  });
  // Tool counts and versions of both runs follow their traces; a run of reruns left empty goes (issue 30: an empty
  // "Reruns" run stayed in the list). The next rerun of its system and model makes it again.
  const left = await sql.get<{ n: number }>("SELECT count(*) AS n FROM traces WHERE run_id = ?", [t.runId]);
  if (Number(left?.n ?? 0) === 0) await deleteRun(sql, t.runId);
  else await recomputeRun(sql, t.runId);
  await recomputeRun(sql, runId);
  return { runId, sample };
}

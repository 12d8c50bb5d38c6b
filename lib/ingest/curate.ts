/**
 * Curation of a stored run (browser and CLI alike): identity (name, system, model), description and tags, the
 * dataset link (its traces linked to the dataset's questions by the upload's rules, then measured again), the
 * tool → role mapping (previewed, then recomputed), archive, and delete. Every change is recorded in
 * `run_changes` with its time and who made it (an access token's name, "local" or "cli"). Traces and steps are
 * never rewritten except by delete; derived columns are recomputed.
 */
import type Database from "better-sqlite3";
import { asSql, type Sql } from "@/lib/db/sql";
import { randomUUID } from "node:crypto";
import { withWriteTransaction } from "@/lib/db/write-lock";
import { stepRoles, type StepRole } from "@/lib/sql/classify-step";
import { linkQuestion } from "@/lib/trace/adapters/link-questions";
import { mergeRoles } from "./measure";
import { recomputeRun } from "./recompute";
import { runIdOf } from "@/lib/trace/hash";
import { removeFromSearchIndex } from "@/lib/search";

export class CurationError extends Error {}

export interface RunIdentityEdit {
  name?: string;
  system?: string;
  model?: string;
  description?: string | null;
  tags?: string[];
}

const record = (sqlite: Database.Database, runId: string, who: string, change: string) =>
  sqlite.prepare("INSERT INTO run_changes (run_id, who, change) VALUES (?, ?, ?)").run(runId, who, change);

function runOf(sqlite: Database.Database, runId: string) {
  const run = sqlite
    .prepare(
      "SELECT id, name, system, model, description, tags, dataset_id AS datasetId, tool_roles AS toolRoles, archived_at AS archivedAt FROM runs WHERE id = ?",
    )
    .get(runId) as
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

export async function editRun(
  sqlite: Database.Database,
  runId: string,
  edit: RunIdentityEdit,
  who: string,
): Promise<string[]> {
  const run = runOf(sqlite, runId);
  const changes: string[] = [];
  const set: [string, unknown][] = [];
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
  await withWriteTransaction(sqlite, () => {
    sqlite
      .prepare(`UPDATE runs SET ${set.map(([k]) => `${k} = ?`).join(", ")}, version = version + 1 WHERE id = ?`)
      .run(...set.map(([, v]) => v), runId);
    for (const c of changes) record(sqlite, runId, who, c);
  });
  return changes;
}

/**
 * Links the run to a dataset (or unlinks it with null): each trace keeps its question id when the dataset has it,
 * else is matched by its question text (exactly, normalised, contained) as at upload; then everything is measured
 * again. Returns how many of the run's traces are linked to a question of the dataset.
 */
export async function linkRunDataset(
  sqlite: Database.Database,
  runId: string,
  datasetRef: string | null,
  who: string,
): Promise<{ traces: number; linked: number }> {
  const run = runOf(sqlite, runId);
  let datasetId: string | null = null;
  if (datasetRef) {
    const d = sqlite.prepare("SELECT id FROM datasets WHERE id = ? OR name = ?").get(datasetRef, datasetRef) as
      { id: string } | undefined;
    if (!d) throw new CurationError(`no dataset named "${datasetRef}"`);
    datasetId = d.id;
  }
  const traces = sqlite
    .prepare("SELECT id, question_id AS questionId, question_text AS text FROM traces WHERE run_id = ?")
    .all(runId) as { id: string; questionId: string; text: string | null }[];
  let linked = 0;
  const relinks: [string, string][] = [];
  if (datasetId) {
    const questions = sqlite
      .prepare("SELECT question_id AS id, text FROM questions WHERE dataset_id = ?")
      .all(datasetId) as { id: string; text: string }[];
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
  await withWriteTransaction(sqlite, () => {
    sqlite.prepare("UPDATE runs SET dataset_id = ?, version = version + 1 WHERE id = ?").run(datasetId, runId);
    // A relinked trace whose (question, sample) is taken by another trace of the run keeps its id: nothing is merged.
    const relink = sqlite.prepare("UPDATE OR IGNORE traces SET question_id = ? WHERE id = ?");
    for (const [questionId, traceId] of relinks) relink.run(questionId, traceId);
    record(
      sqlite,
      runId,
      who,
      datasetId
        ? `linked to dataset ${datasetId}: ${linked} of ${traces.length} traces linked to its questions`
        : `unlinked from dataset ${run.datasetId ?? "(none)"}`,
    );
  });
  await recomputeRun(sqlite, runId);
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
export function previewRoles(
  sqlite: Database.Database,
  runId: string,
  roles: Record<string, StepRole>,
): { changed: number; tools: { tool: string; calls: number; from: string; to: string }[] } {
  runOf(sqlite, runId);
  const merged = mergeRoles(roles);
  const counts = sqlite
    .prepare("SELECT tool, role, calls FROM run_tool_counts WHERE run_id = ? ORDER BY calls DESC")
    .all(runId) as { tool: string; role: string; calls: number }[];
  const tools = counts
    .map((c) => ({ tool: c.tool, calls: c.calls, from: c.role, to: merged[c.tool] ?? "other" }))
    .filter((c) => c.from !== c.to);
  return { changed: tools.reduce((s, t) => s + t.calls, 0), tools };
}

export async function setRunRoles(
  sqlite: Database.Database,
  runId: string,
  roles: Record<string, StepRole>,
  who: string,
): Promise<{ changed: number }> {
  const preview = previewRoles(sqlite, runId, roles);
  await withWriteTransaction(sqlite, () => {
    sqlite
      .prepare("UPDATE runs SET tool_roles = ? WHERE id = ?")
      .run(Object.keys(roles).length ? JSON.stringify(roles) : null, runId);
    record(
      sqlite,
      runId,
      who,
      `tool roles: ${
        Object.entries(roles)
          .map(([t, r]) => `${t} → ${r}`)
          .join(", ") || "defaults"
      } (${preview.changed} calls changed role)`,
    );
  });
  await recomputeRun(sqlite, runId);
  return { changed: preview.changed };
}

export async function archiveRun(
  sqlite: Database.Database,
  runId: string,
  archived: boolean,
  who: string,
): Promise<void> {
  const run = runOf(sqlite, runId);
  if (Boolean(run.archivedAt) === archived) return;
  await withWriteTransaction(sqlite, () => {
    sqlite
      .prepare(
        "UPDATE runs SET archived_at = CASE WHEN ? THEN strftime('%Y-%m-%dT%H:%M:%fZ','now') END, version = version + 1 WHERE id = ?",
      )
      .run(archived ? 1 : 0, runId);
    record(sqlite, runId, who, archived ? "archived" : "unarchived");
  });
}

/** Deletes traces with their steps and the blobs no other step uses (inside the caller's transaction). */
async function removeTraces(tx: Sql, where: string, params: string[]) {
  // The search index lives in the SQLite store only (PostgreSQL's search is not built yet: docs/deployment.md).
  if (tx.connection) removeFromSearchIndex(tx.connection, where, params);
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
export async function deleteRun(
  sqlite: Database.Database,
  runId: string,
): Promise<{ traces: number; steps: number; blobs: number }> {
  runOf(sqlite, runId);
  return asSql(sqlite).transaction(async (tx) => {
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
export async function deleteTraces(store: Database.Database | Sql, runId: string, traceIds: string[]): Promise<number> {
  if (!traceIds.length) return 0;
  const sql = asSql(store);
  const removed = await sql.transaction(
    async (tx) => (await removeTraces(tx, `id IN (${traceIds.map(() => "?").join(",")})`, traceIds)).traces,
  );
  if (await sql.get("SELECT 1 AS one FROM runs WHERE id = ?", [runId])) await recomputeRun(sql, runId);
  return removed;
}

/** Saves a named experiment: exactly these runs (unknown ids dropped), whose figures then change only with them. */
export function createExperiment(sqlite: Database.Database, name: string, runIds: string[]): string {
  const clean = name.trim().slice(0, 200);
  if (!clean || runIds.length === 0) throw new CurationError("an experiment needs a name and at least one run");
  const known = sqlite
    .prepare(`SELECT id, dataset_id AS d FROM runs WHERE id IN (${runIds.map(() => "?").join(",")})`)
    .all(...runIds) as { id: string; d: string | null }[];
  if (known.length === 0) throw new CurationError("none of these runs exists");
  const datasets = [...new Set(known.map((r) => r.d))];
  const id = randomUUID().slice(0, 8);
  sqlite
    .prepare("INSERT INTO experiments (id, name, dataset_id, run_ids) VALUES (?, ?, ?, ?)")
    .run(id, clean, datasets.length === 1 ? datasets[0] : null, JSON.stringify(known.map((r) => r.id)));
  return id;
}

/**
 * Promotes a rerun (a trace of a run of reruns) into a named run of its system, model and dataset, as that run's next
 * sample of the question: from then on it counts in that run's figures and in any view that includes the run. The run
 * is created when it does not exist; the trace keeps its steps, metrics and labels. Recorded in both runs' history.
 */
export async function promoteTrace(
  sqlite: Database.Database,
  traceId: string,
  runName: string,
  who: string,
): Promise<{ runId: string; sample: number }> {
  const name = runName.trim().slice(0, 200);
  if (!name) throw new CurationError("the run needs a name");
  const t = sqlite
    .prepare(
      `SELECT t.id, t.question_id AS questionId, t.run_id AS runId, r.system, r.model, r.benchmark, r.dataset_id AS datasetId,
         coalesce(json_extract(r.config, '$.reruns'), 0) AS reruns, json_extract(r.config, '$.simulated') AS simulated
       FROM traces t JOIN runs r ON r.id = t.run_id WHERE t.id = ?`,
    )
    .get(traceId) as
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
  const target = sqlite.prepare("SELECT dataset_id AS datasetId, config FROM runs WHERE id = ?").get(runId) as
    { datasetId: string | null; config: string | null } | undefined;
  if (target && target.datasetId !== t.datasetId)
    throw new CurationError(`run "${name}" is of another dataset (${target.datasetId ?? "none"})`);
  if (target && JSON.parse(target.config ?? "{}").reruns) throw new CurationError(`run "${name}" is a run of reruns`);
  const sample = await withWriteTransaction(sqlite, () => {
    if (!target)
      sqlite
        .prepare(
          "INSERT INTO runs (id, name, system, model, benchmark, config, dataset_id, description) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .run(
          runId,
          name,
          t.system,
          t.model,
          t.benchmark,
          JSON.stringify({ promoted: true, ...(t.simulated ? { simulated: true } : {}) }),
          t.datasetId,
          "Reruns promoted from the question pages.",
        );
    const next = (
      sqlite
        .prepare("SELECT coalesce(max(sample) + 1, 0) AS n FROM traces WHERE run_id = ? AND question_id = ?")
        .get(runId, t.questionId) as { n: number }
    ).n;
    sqlite.prepare("UPDATE traces SET run_id = ?, sample = ? WHERE id = ?").run(runId, next, traceId);
    record(sqlite, runId, who, `promoted the rerun of question ${t.questionId} (trace ${traceId}) into this run`);
    record(sqlite, t.runId, who, `promoted its trace of question ${t.questionId} into run "${name}"`);
    return next;
  });
  // Tool counts and versions of both runs follow their traces.
  await recomputeRun(sqlite, t.runId);
  await recomputeRun(sqlite, runId);
  return { runId, sample };
}

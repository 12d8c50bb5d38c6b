/**
 * Curation of a stored run (browser and CLI alike): identity (name, system, model), description and tags, the
 * dataset link (its traces linked to the dataset's questions by the upload's rules, then measured again), the
 * tool → role mapping (previewed, then recomputed), archive, and delete. Every change is recorded in
 * `run_changes` with its time and who made it (an access token's name, "local" or "cli"). Traces and steps are
 * never rewritten except by delete; derived columns are recomputed.
 */
import type { Updateable } from "kysely";
import type { Sql } from "@/lib/db/sql";
import { many, one, qb, write, type Tables } from "@/lib/db/typed";
import { inJsonArray } from "@/lib/db/typed-sql";
import { randomUUID } from "node:crypto";
import { stepRoles, type StepRole } from "@/lib/sql/classify-step";
import { linkQuestion } from "@/lib/trace/adapters/link-questions";
import { mergeRoles } from "./measure";
import { CurationError, recordChange as record, runOf, runsLike } from "./run-record";
import { recomputeRun } from "./recompute";

export { CurationError } from "./run-record";

export interface RunIdentityEdit {
  name?: string;
  system?: string;
  model?: string;
  description?: string | null;
  tags?: string[];
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
  if (set.name !== undefined || set.system !== undefined || set.model !== undefined) {
    const to = { name: set.name ?? run.name, system: set.system ?? run.system, model: set.model ?? run.model };
    const [twin] = await runsLike(sql, to, runId);
    // Two runs that look alike in every list, figure and export: refused (a run's id stays what its first upload
    // made it, so the two would never merge).
    if (twin)
      throw new CurationError(
        `run ${twin} is named "${to.name}" with system "${to.system}" and model "${to.model}" already: pick another name`,
      );
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

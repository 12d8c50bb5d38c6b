/**
 * Labels and notes on traces and steps, for error analysis (lib/metrics/failure-taxonomy.ts). Stored by trace identity with
 * their time and author; they survive recompute and re-ingest of the same trace. Counted per system × model for the
 * Experiments page, exported and imported as JSONL so a team can merge its triage.
 */
import { z } from "zod";
import type { Sql } from "@/lib/db/sql";
import { cleanLabel } from "@/lib/metrics/failure-taxonomy";

export class LabelError extends Error {}

export interface LabelRow {
  seq: number;
  label: string;
  who: string;
  at: string;
}

const traceExists = async (sql: Sql, traceId: string) =>
  Boolean(await sql.get("SELECT 1 AS one FROM traces WHERE id = ?", [traceId]));

const now = () => new Date().toISOString();

export async function setLabel(
  sql: Sql,
  traceId: string,
  label: string,
  opts: { seq?: number; on?: boolean; who?: string } = {},
): Promise<void> {
  const clean = cleanLabel(label);
  if (!clean) throw new LabelError("a label needs text");
  if (!(await traceExists(sql, traceId))) throw new LabelError(`no trace ${traceId}`);
  const seq = opts.seq ?? -1;
  await sql.transaction(async (tx) => {
    if (opts.on === false)
      await tx.run("DELETE FROM labels WHERE trace_id = ? AND seq = ? AND label = ?", [traceId, seq, clean]);
    else
      await tx.run(
        "INSERT INTO labels (trace_id, seq, label, who, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
        [traceId, seq, clean, opts.who ?? "local", now()],
      );
  });
}

export async function setNote(
  sql: Sql,
  traceId: string,
  note: string,
  opts: { seq?: number; who?: string } = {},
): Promise<void> {
  if (!(await traceExists(sql, traceId))) throw new LabelError(`no trace ${traceId}`);
  const text = note.trim().slice(0, 10_000);
  const seq = opts.seq ?? -1;
  await sql.transaction(async (tx) => {
    if (!text) await tx.run("DELETE FROM notes WHERE trace_id = ? AND seq = ?", [traceId, seq]);
    else
      await tx.run(
        "INSERT INTO notes (trace_id, seq, note, who, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (trace_id, seq) DO UPDATE SET note = excluded.note, who = excluded.who, created_at = excluded.created_at",
        [traceId, seq, text, opts.who ?? "local", now()],
      );
  });
}

export async function listLabels(sql: Sql, traceId: string): Promise<LabelRow[]> {
  return sql.all<LabelRow>(
    `SELECT seq, label, who, created_at AS at FROM labels WHERE trace_id = ? ORDER BY seq, ${sql.d.binary("label")}`,
    [traceId],
  );
}

export async function listNotes(
  sql: Sql,
  traceId: string,
): Promise<{ seq: number; note: string; who: string; at: string }[]> {
  return sql.all("SELECT seq, note, who, created_at AS at FROM notes WHERE trace_id = ? ORDER BY seq", [traceId]);
}

export async function listRunCauses(sql: Sql, runId: string): Promise<string[]> {
  return (
    await sql.all<{ label: string }>(
      `SELECT label FROM run_causes WHERE run_id = ? ORDER BY ${sql.d.binary("label")}`,
      [runId],
    )
  ).map((r) => r.label);
}

export async function addRunCause(sql: Sql, runId: string, label: string): Promise<void> {
  const clean = cleanLabel(label);
  if (!clean) throw new LabelError("a cause needs text");
  await sql.run("INSERT INTO run_causes (run_id, label) VALUES (?, ?) ON CONFLICT DO NOTHING", [runId, clean]);
}

/** Labelled traces per (group, system, model, label) of the given runs: the failure causes of a view. */
export async function countLabels(
  sql: Sql,
  runIds: string[],
): Promise<{ group: string; system: string; model: string; label: string; traces: number }[]> {
  if (!runIds.length) return [];
  const { d } = sql;
  const group = "coalesce(r.dataset_id, r.benchmark, '(no dataset)')";
  return sql.all(
    `SELECT ${group} AS "group", r.system, r.model, l.label, count(DISTINCT l.trace_id) AS traces
       FROM labels l JOIN traces t ON t.id = l.trace_id JOIN runs r ON r.id = t.run_id
       WHERE ${d.inJsonArray("r.id")}
       GROUP BY ${group}, r.system, r.model, l.label
       ORDER BY ${d.binary(group)}, ${d.binary("l.label")}, ${d.binary("r.system")}, ${d.binary("r.model")}`,
    [JSON.stringify(runIds)],
  );
}

export async function labelsByQuestion(sql: Sql, runId: string): Promise<Map<string, string>> {
  const rows = await sql.all<{ q: string; s: number; labels: string }>(
    `SELECT t.question_id AS q, t.sample AS s, ${sql.d.distinctList("l.label")} AS labels FROM labels l JOIN traces t ON t.id = l.trace_id
       WHERE t.run_id = ? GROUP BY l.trace_id, t.question_id, t.sample`,
    [runId],
  );
  return new Map(rows.map((r) => [`${r.q}\u0000${r.s}`, r.labels.split(",").sort().join("; ")]));
}

const exported = z.object({
  trace_id: z.string().min(1),
  run_name: z.string().optional(),
  question_id: z.string().optional(),
  sample: z.number().int().optional(),
  seq: z.number().int().min(-1).default(-1),
  label: z.string().optional(),
  note: z.string().optional(),
  who: z.string().default("import"),
  at: z.string().optional(),
});

/** Labels and notes as JSONL lines (of a run, or all). */
export async function exportLabels(sql: Sql, runId?: string): Promise<string[]> {
  const where = runId ? "WHERE t.run_id = ?" : "";
  const params = runId ? [runId] : [];
  const rows = await sql.all(
    `SELECT * FROM (
       SELECT l.trace_id, r.name AS run_name, t.question_id, t.sample, l.seq, l.label, NULL AS note, l.who, l.created_at AS at
       FROM labels l JOIN traces t ON t.id = l.trace_id JOIN runs r ON r.id = t.run_id ${where}
       UNION ALL
       SELECT n.trace_id, r.name, t.question_id, t.sample, n.seq, NULL, n.note, n.who, n.created_at
       FROM notes n JOIN traces t ON t.id = n.trace_id JOIN runs r ON r.id = t.run_id ${where}) x
       ORDER BY ${sql.d.binary("x.trace_id")}, x.seq, ${sql.d.binary("x.label")} NULLS FIRST`,
    [...params, ...params],
  );
  return rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null))));
}

export async function importLabels(
  sql: Sql,
  lines: string[],
): Promise<{ labels: number; notes: number; unknownTraces: number; errors: { line: number; message: string }[] }> {
  const out = { labels: 0, notes: 0, unknownTraces: 0, errors: [] as { line: number; message: string }[] };
  const parsed: { line: number; value: z.infer<typeof exported> }[] = [];
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch (e) {
      out.errors.push({ line: i + 1, message: `not JSON: ${(e as Error).message}` });
      return;
    }
    const r = exported.safeParse(json);
    if (!r.success)
      out.errors.push({
        line: i + 1,
        message: r.error.issues.map((x) => `${x.path.join(".")}: ${x.message}`).join("; "),
      });
    else if (!r.data.label && !r.data.note) out.errors.push({ line: i + 1, message: "neither label nor note" });
    else parsed.push({ line: i + 1, value: r.data });
  });
  const at = now();
  await sql.transaction(async (tx) => {
    for (const { value: v } of parsed) {
      if (!(await traceExists(tx, v.trace_id))) {
        out.unknownTraces++;
        continue;
      }
      if (v.label) {
        const clean = cleanLabel(v.label);
        if (clean)
          out.labels += (
            await tx.run(
              "INSERT INTO labels (trace_id, seq, label, who, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING",
              [v.trace_id, v.seq, clean, v.who, v.at ?? at],
            )
          ).changes;
      }
      if (v.note)
        out.notes += (
          await tx.run(
            `INSERT INTO notes (trace_id, seq, note, who, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (trace_id, seq) DO UPDATE SET note = excluded.note, who = excluded.who, created_at = excluded.created_at
       WHERE excluded.created_at > notes.created_at`,
            [v.trace_id, v.seq, v.note, v.who, v.at ?? at],
          )
        ).changes;
    }
  });
  return out;
}

export async function labelledKeys(sql: Sql, runIds: string[], label: string): Promise<Set<string>> {
  const rows = await sql.all<{ q: string; s: number }>(
    `SELECT DISTINCT t.question_id AS q, t.sample AS s FROM labels l JOIN traces t ON t.id = l.trace_id
       WHERE l.label = ? AND ${sql.d.inJsonArray("t.run_id")}`,
    [label, JSON.stringify(runIds)],
  );
  return new Set(rows.map((r) => `${r.q}\u0000${r.s}`));
}

/** The labels used on the traces of these runs. */
export async function listRunLabels(sql: Sql, runIds: string[]): Promise<string[]> {
  return (
    await sql.all<{ label: string }>(
      `SELECT l.label FROM labels l JOIN traces t ON t.id = l.trace_id WHERE ${sql.d.inJsonArray("t.run_id")} GROUP BY l.label ORDER BY ${sql.d.binary("l.label")}`,
      [JSON.stringify(runIds)],
    )
  ).map((r) => r.label);
}

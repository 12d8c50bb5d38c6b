/**
 * Labels and notes on traces and steps, for error analysis (lib/labels/taxonomy.ts). Stored by trace identity with
 * their time and author; they survive recompute and re-ingest of the same trace. Counted per system × model for the
 * Experiments page, exported and imported as JSONL so a team can merge its triage.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { withWriteTransaction } from "@/lib/db/write-lock";
import { cleanLabel } from "./taxonomy";

export class LabelError extends Error {}

export interface LabelRow {
  seq: number;
  label: string;
  who: string;
  at: string;
}

const traceExists = (sqlite: Database.Database, traceId: string) =>
  Boolean(sqlite.prepare("SELECT 1 FROM traces WHERE id = ?").get(traceId));

/** Sets or removes a label on a trace (seq -1) or a step. */
export async function setLabel(
  sqlite: Database.Database,
  traceId: string,
  label: string,
  opts: { seq?: number; on?: boolean; who?: string } = {},
): Promise<void> {
  const clean = cleanLabel(label);
  if (!clean) throw new LabelError("a label needs text");
  if (!traceExists(sqlite, traceId)) throw new LabelError(`no trace ${traceId}`);
  const seq = opts.seq ?? -1;
  await withWriteTransaction(sqlite, () => {
    if (opts.on === false)
      sqlite.prepare("DELETE FROM labels WHERE trace_id = ? AND seq = ? AND label = ?").run(traceId, seq, clean);
    else
      sqlite
        .prepare("INSERT OR IGNORE INTO labels (trace_id, seq, label, who) VALUES (?, ?, ?, ?)")
        .run(traceId, seq, clean, opts.who ?? "local");
  });
}

/** Sets (or, with empty text, removes) the note of a trace or step. */
export async function setNote(
  sqlite: Database.Database,
  traceId: string,
  note: string,
  opts: { seq?: number; who?: string } = {},
): Promise<void> {
  if (!traceExists(sqlite, traceId)) throw new LabelError(`no trace ${traceId}`);
  const text = note.trim().slice(0, 10_000);
  const seq = opts.seq ?? -1;
  await withWriteTransaction(sqlite, () => {
    if (!text) sqlite.prepare("DELETE FROM notes WHERE trace_id = ? AND seq = ?").run(traceId, seq);
    else
      sqlite
        .prepare(
          "INSERT INTO notes (trace_id, seq, note, who) VALUES (?, ?, ?, ?) ON CONFLICT (trace_id, seq) DO UPDATE SET note = excluded.note, who = excluded.who, created_at = excluded.created_at",
        )
        .run(traceId, seq, text, opts.who ?? "local");
  });
}

export function listLabels(sqlite: Database.Database, traceId: string): LabelRow[] {
  return sqlite
    .prepare("SELECT seq, label, who, created_at AS at FROM labels WHERE trace_id = ? ORDER BY seq, label")
    .all(traceId) as LabelRow[];
}

export function listNotes(
  sqlite: Database.Database,
  traceId: string,
): { seq: number; note: string; who: string; at: string }[] {
  return sqlite
    .prepare("SELECT seq, note, who, created_at AS at FROM notes WHERE trace_id = ? ORDER BY seq")
    .all(traceId) as { seq: number; note: string; who: string; at: string }[];
}

/** The causes a run adds to the preset taxonomy. */
export function listRunCauses(sqlite: Database.Database, runId: string): string[] {
  return (
    sqlite.prepare("SELECT label FROM run_causes WHERE run_id = ? ORDER BY label").all(runId) as { label: string }[]
  ).map((r) => r.label);
}

export function addRunCause(sqlite: Database.Database, runId: string, label: string): void {
  const clean = cleanLabel(label);
  if (!clean) throw new LabelError("a cause needs text");
  sqlite.prepare("INSERT OR IGNORE INTO run_causes (run_id, label) VALUES (?, ?)").run(runId, clean);
}

/**
 * Labelled traces per cause and (dataset, system, model) cell over a view's runs: a trace counts once per label
 * whether the label is on the trace or on one of its steps.
 */
export function countLabels(
  sqlite: Database.Database,
  runIds: string[],
): { group: string; system: string; model: string; label: string; traces: number }[] {
  if (!runIds.length) return [];
  return sqlite
    .prepare(
      `SELECT coalesce(r.dataset_id, r.benchmark, '(no dataset)') AS "group", r.system, r.model, l.label, count(DISTINCT l.trace_id) AS traces
       FROM labels l JOIN traces t ON t.id = l.trace_id JOIN runs r ON r.id = t.run_id
       WHERE r.id IN (SELECT value FROM json_each(?))
       GROUP BY 1, 2, 3, 4 ORDER BY 1, 4, 2, 3`,
    )
    .all(JSON.stringify(runIds)) as { group: string; system: string; model: string; label: string; traces: number }[];
}

/** The labels of a run's traces as `question_id \0 sample → "a; b"` (for CSV columns). */
export function labelsByQuestion(sqlite: Database.Database, runId: string): Map<string, string> {
  const rows = sqlite
    .prepare(
      `SELECT t.question_id AS q, t.sample AS s, group_concat(DISTINCT l.label) AS labels FROM labels l JOIN traces t ON t.id = l.trace_id
       WHERE t.run_id = ? GROUP BY l.trace_id`,
    )
    .all(runId) as { q: string; s: number; labels: string }[];
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
export function exportLabels(sqlite: Database.Database, runId?: string): string[] {
  const where = runId ? "WHERE t.run_id = ?" : "";
  const params = runId ? [runId] : [];
  const rows = sqlite
    .prepare(
      `SELECT l.trace_id, r.name AS run_name, t.question_id, t.sample, l.seq, l.label, NULL AS note, l.who, l.created_at AS at
       FROM labels l JOIN traces t ON t.id = l.trace_id JOIN runs r ON r.id = t.run_id ${where}
       UNION ALL
       SELECT n.trace_id, r.name, t.question_id, t.sample, n.seq, NULL, n.note, n.who, n.created_at
       FROM notes n JOIN traces t ON t.id = n.trace_id JOIN runs r ON r.id = t.run_id ${where}
       ORDER BY 1, 5, 6`,
    )
    .all(...params, ...params) as Record<string, unknown>[];
  return rows.map((r) => JSON.stringify(Object.fromEntries(Object.entries(r).filter(([, v]) => v !== null))));
}

/**
 * Merges exported labels and notes: a label is added unless present (so merging twice adds nothing); a note
 * replaces an older one. A line for a trace this store lacks is reported, not stored; a bad line names its number.
 */
export async function importLabels(
  sqlite: Database.Database,
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
  await withWriteTransaction(sqlite, () => {
    const exists = sqlite.prepare("SELECT 1 FROM traces WHERE id = ?");
    const label = sqlite.prepare(
      "INSERT OR IGNORE INTO labels (trace_id, seq, label, who, created_at) VALUES (?, ?, ?, ?, coalesce(?, strftime('%Y-%m-%dT%H:%M:%fZ','now')))",
    );
    const note = sqlite.prepare(
      `INSERT INTO notes (trace_id, seq, note, who, created_at) VALUES (?, ?, ?, ?, coalesce(?, strftime('%Y-%m-%dT%H:%M:%fZ','now')))
       ON CONFLICT (trace_id, seq) DO UPDATE SET note = excluded.note, who = excluded.who, created_at = excluded.created_at
       WHERE excluded.created_at > notes.created_at`,
    );
    for (const { value: v } of parsed) {
      if (!exists.get(v.trace_id)) {
        out.unknownTraces++;
        continue;
      }
      if (v.label) {
        const clean = cleanLabel(v.label);
        if (clean) out.labels += label.run(v.trace_id, v.seq, clean, v.who, v.at ?? null).changes;
      }
      if (v.note) out.notes += note.run(v.trace_id, v.seq, v.note, v.who, v.at ?? null).changes;
    }
  });
  return out;
}

/** The `question \0 sample` keys of the traces, in any of these runs, that carry a label (the compare filter). */
export function labelledKeys(sqlite: Database.Database, runIds: string[], label: string): Set<string> {
  const rows = sqlite
    .prepare(
      `SELECT DISTINCT t.question_id AS q, t.sample AS s FROM labels l JOIN traces t ON t.id = l.trace_id
       WHERE l.label = ? AND t.run_id IN (SELECT value FROM json_each(?))`,
    )
    .all(label, JSON.stringify(runIds)) as { q: string; s: number }[];
  return new Set(rows.map((r) => `${r.q}\u0000${r.s}`));
}

/** The labels used on the traces of these runs. */
export function listRunLabels(sqlite: Database.Database, runIds: string[]): string[] {
  return (
    sqlite
      .prepare(
        "SELECT DISTINCT l.label FROM labels l JOIN traces t ON t.id = l.trace_id WHERE t.run_id IN (SELECT value FROM json_each(?)) ORDER BY 1",
      )
      .all(JSON.stringify(runIds)) as { label: string }[]
  ).map((r) => r.label);
}

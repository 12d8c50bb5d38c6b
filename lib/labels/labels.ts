/**
 * Labels and notes on traces and steps, for error analysis (lib/metrics/failure-taxonomy.ts). Stored by trace identity with
 * their time and author; they survive recompute and re-ingest of the same trace. Counted per system × model for the
 * Experiments page, exported and imported as JSONL so a team can merge its triage.
 */
import { z } from "zod";
import type { Sql } from "@/lib/db/sql";
import { sql as raw, type Insertable } from "kysely";
import { binary, many, one, qb, write, type Tables } from "@/lib/db/typed";
import { byCodePoint, distinctList, inJsonArray, runGroup } from "@/lib/db/typed-sql";
import { cleanLabel } from "@/lib/metrics/failure-taxonomy";

export class LabelError extends Error {}

export interface LabelRow {
  seq: number;
  label: string;
  who: string;
  at: string;
}

const traceExists = async (sql: Sql, traceId: string) =>
  Boolean(await one(sql, qb(sql).selectFrom("traces").select("id").where("id", "=", traceId)));

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
      await write(
        tx,
        qb(tx).deleteFrom("labels").where("trace_id", "=", traceId).where("seq", "=", seq).where("label", "=", clean),
      );
    else await insertLabel(tx, { trace_id: traceId, seq, label: clean, who: opts.who ?? "local", created_at: now() });
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
    if (!text) await write(tx, qb(tx).deleteFrom("notes").where("trace_id", "=", traceId).where("seq", "=", seq));
    else await upsertNote(tx, { trace_id: traceId, seq, note: text, who: opts.who ?? "local", created_at: now() });
  });
}

type LabelIn = Insertable<Tables["labels"]>;
type NoteIn = Insertable<Tables["notes"]>;

/** A label, once (a second time is no change). */
function insertLabel(sql: Sql, row: LabelIn) {
  return write(
    sql,
    qb(sql)
      .insertInto("labels")
      .values(row)
      .onConflict((oc) => oc.doNothing()),
  );
}

/** A note, replacing the one there (`onlyNewer`: only by a note written later, as an import merges). */
function upsertNote(sql: Sql, row: NoteIn, onlyNewer = false) {
  return write(
    sql,
    qb(sql)
      .insertInto("notes")
      .values(row)
      .onConflict((oc) => {
        const update = oc.columns(["trace_id", "seq"]).doUpdateSet((eb) => ({
          note: eb.ref("excluded.note"),
          who: eb.ref("excluded.who"),
          created_at: eb.ref("excluded.created_at"),
        }));
        return onlyNewer ? update.where("excluded.created_at", ">", (eb) => eb.ref("notes.created_at")) : update;
      }),
  );
}

export async function listLabels(sql: Sql, traceId: string): Promise<LabelRow[]> {
  return many(
    sql,
    qb(sql)
      .selectFrom("labels")
      .select(["seq", "label", "who", "created_at as at"])
      .where("trace_id", "=", traceId)
      .orderBy("seq")
      .orderBy(binary(sql, "label")),
  );
}

export async function listNotes(
  sql: Sql,
  traceId: string,
): Promise<{ seq: number; note: string; who: string; at: string }[]> {
  return many(
    sql,
    qb(sql)
      .selectFrom("notes")
      .select(["seq", "note", "who", "created_at as at"])
      .where("trace_id", "=", traceId)
      .orderBy("seq"),
  );
}

export async function listRunCauses(sql: Sql, runId: string): Promise<string[]> {
  return (
    await many(
      sql,
      qb(sql).selectFrom("run_causes").select("label").where("run_id", "=", runId).orderBy(binary(sql, "label")),
    )
  ).map((r) => r.label);
}

export async function addRunCause(sql: Sql, runId: string, label: string): Promise<void> {
  const clean = cleanLabel(label);
  if (!clean) throw new LabelError("a cause needs text");
  await write(
    sql,
    qb(sql)
      .insertInto("run_causes")
      .values({ run_id: runId, label: clean })
      .onConflict((oc) => oc.doNothing()),
  );
}

/**
 * Labelled traces per (group, system, model, label) of the given runs: the failure causes of a view. Walked from the
 * labels, each one's trace and run found by its key (SQLite keeps the order of a CROSS JOIN; PostgreSQL plans it as
 * the inner join it is): joined as inner joins, SQLite walked every trace of the view's runs to find their labels,
 * 80–150 ms per Experiments page at 1M traces in a store without a single label.
 */
export async function countLabels(
  sql: Sql,
  runIds: string[],
): Promise<{ group: string; system: string; model: string; label: string; traces: number }[]> {
  if (!runIds.length) return [];
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("labels as l")
      .crossJoin("traces as t")
      .crossJoin("runs as r")
      .whereRef("t.id", "=", "l.trace_id")
      // `|| ''` keeps SQLite from carrying the runs' list over to `t.run_id` and probing traces_run_id once per run
      // for each label: each label's trace is found by its id, its run then by the run's.
      .where((eb) => eb("r.id", "=", raw<string>`${eb.ref("t.run_id")} || ''`))
      .select((eb) => [
        runGroup(eb, "r.dataset_id", "r.benchmark").as("group"),
        "r.system",
        "r.model",
        "l.label",
        eb.fn.count<number>("l.trace_id").distinct().as("traces"),
      ])
      .where((eb) => inJsonArray(sql, eb, "r.id", runIds))
      .groupBy((eb) => [runGroup(eb, "r.dataset_id", "r.benchmark"), "r.system", "r.model", "l.label"])
      .orderBy((eb) => byCodePoint(sql, runGroup(eb, "r.dataset_id", "r.benchmark")))
      .orderBy(binary(sql, "l.label"))
      .orderBy(binary(sql, "r.system"))
      .orderBy(binary(sql, "r.model")),
  );
  return rows;
}

export async function labelsByQuestion(
  sql: Sql,
  runId: string,
  /** Only these questions' traces (a batch of an export); all of the run's without it. */
  questionIds?: readonly string[],
): Promise<Map<string, string>> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("labels as l")
      .innerJoin("traces as t", "t.id", "l.trace_id")
      .select((eb) => ["t.question_id as q", "t.sample as s", distinctList(sql, eb, "l.label").as("labels")])
      .where("t.run_id", "=", runId)
      .$if(questionIds !== undefined, (w) => w.where((eb) => inJsonArray(sql, eb, "t.question_id", questionIds ?? [])))
      .groupBy(["l.trace_id", "t.question_id", "t.sample"]),
  );
  return new Map(rows.map((r) => [`${r.q}\u0000${r.s}`, (r.labels ?? "").split(",").sort().join("; ")]));
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
  const q = qb(sql);
  const nothing = raw<string | null>`NULL`;
  const labels = q
    .selectFrom("labels as l")
    .innerJoin("traces as t", "t.id", "l.trace_id")
    .innerJoin("runs as r", "r.id", "t.run_id")
    .select((eb) => [
      "l.trace_id",
      "r.name as run_name",
      "t.question_id",
      "t.sample",
      "l.seq",
      eb.ref("l.label").$castTo<string | null>().as("label"),
      nothing.as("note"),
      "l.who",
      "l.created_at as at",
    ])
    .$if(Boolean(runId), (w) => w.where("t.run_id", "=", runId!));
  const notes = q
    .selectFrom("notes as n")
    .innerJoin("traces as t", "t.id", "n.trace_id")
    .innerJoin("runs as r", "r.id", "t.run_id")
    .select((eb) => [
      "n.trace_id",
      "r.name as run_name",
      "t.question_id",
      "t.sample",
      "n.seq",
      nothing.as("label"),
      eb.ref("n.note").$castTo<string | null>().as("note"),
      "n.who",
      "n.created_at as at",
    ])
    .$if(Boolean(runId), (w) => w.where("t.run_id", "=", runId!));
  const rows = await many(
    sql,
    q
      .selectFrom(labels.unionAll(notes).as("x"))
      .selectAll()
      .orderBy(binary(sql, "x.trace_id"))
      .orderBy("x.seq")
      .orderBy(binary(sql, "x.label"), (o) => o.asc().nullsFirst()),
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
            await insertLabel(tx, {
              trace_id: v.trace_id,
              seq: v.seq,
              label: clean,
              who: v.who,
              created_at: v.at ?? at,
            })
          ).changes;
      }
      if (v.note)
        out.notes += (
          await upsertNote(
            tx,
            { trace_id: v.trace_id, seq: v.seq, note: v.note, who: v.who, created_at: v.at ?? at },
            true,
          )
        ).changes;
    }
  });
  return out;
}

export async function labelledKeys(sql: Sql, runIds: string[], label: string): Promise<Set<string>> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("labels as l")
      .innerJoin("traces as t", "t.id", "l.trace_id")
      .select(["t.question_id as q", "t.sample as s"])
      .distinct()
      .where("l.label", "=", label)
      .where((eb) => inJsonArray(sql, eb, "t.run_id", runIds)),
  );
  return new Set(rows.map((r) => `${r.q}\u0000${r.s}`));
}

/**
 * Labels of traces of these runs, walked from the labels (a few, where triage happened) with each one's trace found
 * by its key: a store's runs without labels cost nothing, however many traces they hold.
 */
function labelsOfRuns(sql: Sql, runIds: string[]) {
  return qb(sql)
    .selectFrom("labels as l")
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom("traces as t")
          .select("t.id")
          .whereRef("t.id", "=", "l.trace_id")
          .where((eb) => inJsonArray(sql, eb, "t.run_id", runIds)),
      ),
    );
}

/** The labels used on the traces of these runs. */
export async function listRunLabels(sql: Sql, runIds: string[]): Promise<string[]> {
  return (
    await many(sql, labelsOfRuns(sql, runIds).select("l.label").groupBy("l.label").orderBy(binary(sql, "l.label")))
  ).map((r) => r.label);
}

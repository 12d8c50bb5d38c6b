/**
 * Custom scores on traces (docs/scores.md): set through the API, `metron score set|import` and the question page;
 * stored by trace identity (table `scores`), so they survive recompute, delete + re-ingest and export/import. A
 * score's kind follows its value — a number, a boolean, or a category (text) — and a name keeps one kind across the
 * store. Summaries and paired comparisons are lib/metrics/scores.ts's.
 */
import { z } from "zod";
import type { Sql } from "@/lib/db/sql";
import { many, one, qb, raw, write } from "@/lib/db/typed";
import { inJsonArray } from "@/lib/db/typed-sql";
import type { OverviewGroup } from "@/lib/metrics/overview";
import {
  compareScores,
  summarizeScore,
  type PairedScore,
  type ScoreKind,
  type ScoreSummary,
  type ScoreUnit,
} from "@/lib/metrics/scores";

export const SCORE_NAME = /^[A-Za-z0-9_.:-]{1,100}$/;
export const SCORE_SOURCE = /^(api|cli|human|llm-judge:[\w.:/@-]{1,200})$/;

/** One score as a client sends it (the API's body, a line of `metron score import`). */
export const scoreInput = z.object({
  trace_id: z.string().min(1).max(200),
  seq: z.number().int().min(-1).default(-1),
  name: z.string().regex(SCORE_NAME, "letters, digits and _ . : - (at most 100)"),
  value: z.union([z.number().finite(), z.boolean(), z.string().min(1).max(200)], {
    error: "a finite number, true or false, or a category (a string of 1 to 200 characters)",
  }),
  source: z.string().regex(SCORE_SOURCE, 'one of "api", "cli", "human" or "llm-judge:<model>"').default("api"),
  comment: z.string().max(10_000).optional(),
  at: z.string().datetime().optional(),
});
export type ScoreInput = z.input<typeof scoreInput>;

export const kindOf = (value: number | boolean | string): ScoreKind =>
  typeof value === "number" ? "numeric" : typeof value === "boolean" ? "boolean" : "categorical";

export interface ScoreRow {
  seq: number;
  name: string;
  kind: ScoreKind;
  value: number | boolean | string;
  source: string;
  comment: string | null;
  at: string;
}

export interface SetReport {
  stored: number;
  /** Scores whose trace is not in the store (nothing stored for them). */
  unknown_traces: number;
  /** Each refused score, by its place in the request (or its line), with why. */
  errors: { index: number; message: string }[];
}

/**
 * Sets scores (replacing the same trace, step and name's), in one transaction; a score that is refused (its trace
 * unknown, its kind not its name's) is reported by its place and the others are stored.
 */
export async function setScores(sql: Sql, inputs: readonly unknown[], defaultSource = "api"): Promise<SetReport> {
  const report: SetReport = { stored: 0, unknown_traces: 0, errors: [] };
  const valid: { index: number; s: z.output<typeof scoreInput> }[] = [];
  inputs.forEach((raw, index) => {
    const r = scoreInput.safeParse(
      raw && typeof raw === "object" && !("source" in raw) ? { ...raw, source: defaultSource } : raw,
    );
    if (r.success) valid.push({ index, s: r.data });
    else
      report.errors.push({
        index,
        message: r.error.issues.map((i) => `${i.path.join(".") || "score"}: ${i.message}`).join("; "),
      });
  });
  if (!valid.length) return report;
  await sql.transaction(async (tx) => {
    const q = qb(tx);
    const names = [...new Set(valid.map((v) => v.s.name))];
    // A name keeps one kind, so any one of its scores says it: a seek per name, not a walk of all its scores.
    const kinds = new Map<string, ScoreKind>();
    for (const name of names) {
      const [row] = await many(tx, q.selectFrom("scores").select("kind").where("name", "=", name).limit(1));
      if (row) kinds.set(name, row.kind as ScoreKind);
    }
    const ids = [...new Set(valid.map((v) => v.s.trace_id))];
    const known = new Set<string>();
    for (let i = 0; i < ids.length; i += 5000)
      for (const r of await many(
        tx,
        q
          .selectFrom("traces")
          .select("id")
          .where((eb) => inJsonArray(tx, eb, "id", ids.slice(i, i + 5000))),
      ))
        known.add(r.id);
    const at = new Date().toISOString();
    for (const { index, s } of valid) {
      // A missing trace first: such a score is counted among them whatever else is wrong with it.
      if (!known.has(s.trace_id)) {
        report.unknown_traces++;
        report.errors.push({ index, message: `trace_id: no trace ${s.trace_id} in the store` });
        continue;
      }
      const kind = kindOf(s.value);
      const was = kinds.get(s.name);
      if (was && was !== kind) {
        report.errors.push({ index, message: `value: ${s.name} is a ${was} score; this value is ${kind}` });
        continue;
      }
      kinds.set(s.name, kind);
      const value = typeof s.value === "number" ? s.value : typeof s.value === "boolean" ? (s.value ? 1 : 0) : null;
      const category = typeof s.value === "string" ? s.value : null;
      await write(
        tx,
        q
          .insertInto("scores")
          .values({
            trace_id: s.trace_id,
            seq: s.seq,
            name: s.name,
            kind,
            value,
            category,
            source: s.source,
            comment: s.comment ?? null,
            created_at: s.at ?? at,
          })
          .onConflict((oc) =>
            oc.columns(["trace_id", "seq", "name"]).doUpdateSet((eb) => ({
              kind: eb.ref("excluded.kind"),
              value: eb.ref("excluded.value"),
              category: eb.ref("excluded.category"),
              source: eb.ref("excluded.source"),
              comment: eb.ref("excluded.comment"),
              created_at: eb.ref("excluded.created_at"),
            })),
          ),
      );
      report.stored++;
    }
  });
  return report;
}

/** `metron score import`: JSONL lines of scores; a bad line is reported by its number, the others are stored. */
export async function importScores(sql: Sql, lines: readonly string[], source = "cli"): Promise<SetReport> {
  const parsed: unknown[] = [];
  const lineOf: number[] = [];
  const errors: SetReport["errors"] = [];
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    try {
      parsed.push(JSON.parse(text));
      lineOf.push(i + 1);
    } catch (e) {
      errors.push({ index: i + 1, message: `not JSON: ${(e as Error).message}` });
    }
  });
  const r = await setScores(sql, parsed, source);
  return {
    ...r,
    errors: [...errors, ...r.errors.map((e) => ({ index: lineOf[e.index], message: e.message }))].sort(
      (a, b) => a.index - b.index,
    ),
  };
}

const rowOf = (r: {
  seq: number;
  name: string;
  kind: string;
  value: number | null;
  category: string | null;
  source: string;
  comment: string | null;
  at: string;
}): ScoreRow => ({
  seq: r.seq,
  name: r.name,
  kind: r.kind as ScoreKind,
  value: r.kind === "categorical" ? r.category! : r.kind === "boolean" ? r.value === 1 : r.value!,
  source: r.source,
  comment: r.comment,
  at: r.at,
});

/** A trace's scores (and its steps'), by name. */
export async function listTraceScores(sql: Sql, traceId: string): Promise<ScoreRow[]> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("scores")
      .select(["seq", "name", "kind", "value", "category", "source", "comment", "created_at as at"])
      .where("trace_id", "=", traceId)
      .orderBy("seq")
      .orderBy("name"),
  );
  return rows.map(rowOf);
}

/**
 * Whether the store holds any score: most stores hold none, and the queries below walk a run's traces to find its
 * scores (the first run page after a start on a 1M-trace store spent 80 ms there, its traces' index cold).
 */
async function anyScores(sql: Sql): Promise<boolean> {
  return Boolean(await one(sql, qb(sql).selectFrom("scores").select("trace_id").limit(1)));
}

/** The trace-level scores of runs' traces, by name and run: what summaries and comparisons count. */
export async function scoreUnits(
  sql: Sql,
  runIds: readonly string[],
): Promise<Map<string, { kind: ScoreKind; byRun: Map<string, ScoreUnit[]> }>> {
  const out = new Map<string, { kind: ScoreKind; byRun: Map<string, ScoreUnit[]> }>();
  if (!runIds.length || !(await anyScores(sql))) return out;
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("scores as s")
      .innerJoin("traces as t", "t.id", "s.trace_id")
      .select([
        "s.name",
        "s.kind",
        "s.value",
        "s.category",
        "t.run_id as runId",
        "t.question_id as questionId",
        "t.sample",
      ])
      .where("s.seq", "=", -1)
      .where((eb) => inJsonArray(sql, eb, "t.run_id", runIds)),
  );
  for (const r of rows) {
    let entry = out.get(r.name);
    if (!entry) out.set(r.name, (entry = { kind: r.kind as ScoreKind, byRun: new Map() }));
    const list = entry.byRun.get(r.runId) ?? [];
    list.push({ questionId: r.questionId, sample: r.sample, value: r.value, category: r.category });
    entry.byRun.set(r.runId, list);
  }
  return out;
}

type RunUnits = Awaited<ReturnType<typeof scoreUnits>>;

/** Each score of some of the runs read, their traces pooled (one run, or an Experiments cell), by name. */
function pooled(units: RunUnits, runIds: readonly string[]): ScoreSummary[] {
  return [...units]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .flatMap(([name, { kind, byRun }]) => {
      const traces = runIds.flatMap((id) => byRun.get(id) ?? []);
      return traces.length ? [summarizeScore(name, kind, traces)] : [];
    });
}

/** Each score of a set of runs pooled (one run, or an Experiments cell), summarized. */
export async function summarizeRunScores(sql: Sql, runIds: readonly string[]): Promise<ScoreSummary[]> {
  return pooled(await scoreUnits(sql, runIds), runIds);
}

/** Each set of runs' scores pooled (the cells of the Experiments matrix), from one read of all their scores. */
export async function summarizeRunSets(sql: Sql, sets: readonly (readonly string[])[]): Promise<ScoreSummary[][]> {
  const units = await scoreUnits(sql, [...new Set(sets.flat())]);
  return sets.map((ids) => pooled(units, ids));
}

export interface ComparedScores {
  /** Each run's scores summarized, in the order of the runs. */
  runs: ScoreSummary[][];
  /** Each score compared between the baseline run and every other run (null for the baseline). */
  paired: { name: string; kind: ScoreKind; versus: (PairedScore | null)[] }[];
}

/** The scores of compared runs, from one read: each run's summaries, and each score paired against the baseline. */
export async function compareRunScores(sql: Sql, runIds: readonly string[], baseline: number): Promise<ComparedScores> {
  const units = await scoreUnits(sql, runIds);
  return {
    runs: runIds.map((id) => pooled(units, [id])),
    paired: [...units]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([name, { kind, byRun }]) => ({
        name,
        kind,
        versus: runIds.map((id, i) =>
          i === baseline ? null : compareScores(name, kind, byRun.get(runIds[baseline]) ?? [], byRun.get(id) ?? []),
        ),
      })),
  };
}

/** Scores as JSONL lines (of a run, or all), in the form `metron score import` reads. */
export async function exportScores(sql: Sql, runId?: string): Promise<string[]> {
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("scores as s")
      .innerJoin("traces as t", "t.id", "s.trace_id")
      .select([
        "s.trace_id",
        "s.seq",
        "s.name",
        "s.kind",
        "s.value",
        "s.category",
        "s.source",
        "s.comment",
        "s.created_at as at",
      ])
      .$if(Boolean(runId), (w) => w.where("t.run_id", "=", runId!))
      .orderBy("s.trace_id")
      .orderBy("s.seq")
      .orderBy("s.name"),
  );
  return rows.map((r) => {
    const row = rowOf(r);
    return JSON.stringify({
      trace_id: r.trace_id,
      seq: row.seq,
      name: row.name,
      value: row.value,
      source: row.source,
      ...(row.comment ? { comment: row.comment } : {}),
      at: row.at,
    });
  });
}

/**
 * The scores of each cell of an Experiments group (its runs pooled, as its EX is), in the matrix's order (model,
 * then system); cells without any score are left out, and a group without any is an empty list.
 */
export async function summarizeCellScores(
  sql: Sql,
  g: Pick<OverviewGroup, "models" | "systems" | "cells">,
): Promise<{ name: string; simulated: boolean; system: string; shade: number; scores: ScoreSummary[] }[]> {
  const cells = g.models.flatMap((model) =>
    g.systems.flatMap((system) => {
      const cell = g.cells[model]?.[system];
      return cell ? [{ model, system, cell, shade: g.models.indexOf(model) }] : [];
    }),
  );
  const scores = await summarizeRunSets(
    sql,
    cells.map((c) => c.cell.runs.map((r) => r.id)),
  );
  return cells.flatMap(({ model, system, cell, shade }, i) =>
    scores[i].length
      ? [
          {
            name: `${model} · ${system}`,
            simulated: cell.runs.some((r) => r.simulated),
            system,
            shade,
            scores: scores[i],
          },
        ]
      : [],
  );
}

/**
 * A value typed in a form, as a score's value: `true` / `false` a boolean, a number a number, anything else a
 * category (what the question page's form sends).
 */
export function parseScoreValue(text: string): number | boolean | string {
  const t = text.trim();
  if (/^(true|false)$/i.test(t)) return t.toLowerCase() === "true";
  if (t !== "" && Number.isFinite(Number(t))) return Number(t);
  return t;
}

/**
 * The score names in the store, the first 500 in order (the question page's suggestions): each found by one seek in
 * the name index after the one before (a recursive query), so the cost is the number of names, not of scores.
 */
export async function listScoreNames(sql: Sql): Promise<string[]> {
  const rows = await many(
    sql,
    raw<{ name: string | null }>`WITH RECURSIVE n(name) AS (
      SELECT min(name) FROM scores
      UNION ALL
      SELECT (SELECT min(s.name) FROM scores s WHERE s.name > n.name) FROM n WHERE n.name IS NOT NULL
    ) SELECT name FROM n WHERE name IS NOT NULL LIMIT 500`,
  );
  return rows.map((r) => r.name!);
}

/** The names of the trace-level scores on a run's traces (the CSV's score columns), sorted. */
export async function listRunScoreNames(sql: Sql, runId: string): Promise<string[]> {
  if (!(await anyScores(sql))) return [];
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("scores as s")
      .innerJoin("traces as t", "t.id", "s.trace_id")
      .select("s.name")
      .distinct()
      .where("t.run_id", "=", runId)
      .where("s.seq", "=", -1)
      .orderBy("s.name"),
  );
  return rows.map((r) => r.name);
}

/** The trace-level scores of some traces, by trace and name (a batch of an export). */
export async function scoresByTrace(
  sql: Sql,
  traceIds: readonly string[],
): Promise<Map<string, Map<string, number | boolean | string>>> {
  const out = new Map<string, Map<string, number | boolean | string>>();
  if (!traceIds.length) return out;
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("scores")
      .select(["trace_id", "seq", "name", "kind", "value", "category", "source", "comment", "created_at as at"])
      .where("seq", "=", -1)
      .where((eb) => inJsonArray(sql, eb, "trace_id", traceIds)),
  );
  for (const r of rows) {
    const m = out.get(r.trace_id) ?? new Map();
    m.set(r.name, rowOf(r).value);
    out.set(r.trace_id, m);
  }
  return out;
}

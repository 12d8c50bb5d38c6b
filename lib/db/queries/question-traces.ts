import { findRow } from "@/lib/db/rows";
import { traces } from "@/lib/db/schema";
import type { Sql } from "@/lib/db/sql";
import type { TraceRow } from "@/lib/db/schema";
import { EFFECTIVE_CORRECT } from "./metrics-sql";

/** The trace of one question (and sample) in a run, every column. */
export function getQuestionTrace(
  sql: Sql,
  runId: string,
  questionId: string,
  sample: number,
): Promise<TraceRow | undefined> {
  return findRow(sql, traces, "traces", "run_id = ? AND question_id = ? AND sample = ?", [runId, questionId, sample]);
}

export async function listSamples(sql: Sql, runId: string, questionId: string): Promise<number[]> {
  return (
    (await sql.all("SELECT sample FROM traces WHERE run_id = ? AND question_id = ? ORDER BY sample", [
      runId,
      questionId,
    ])) as { sample: number }[]
  ).map((r) => r.sample);
}

export interface Neighbours {
  prev?: string;
  next?: string;
  prevFailing?: string;
  nextFailing?: string;
  position: number;
  total: number;
}

/** Previous/next question and previous/next failing question in the run's question order. */
export async function getNeighbours(sql: Sql, runId: string, questionId: string): Promise<Neighbours> {
  const rows = (await sql.all(
    `SELECT question_id AS q, min(${EFFECTIVE_CORRECT}) AS correct FROM traces t WHERE t.run_id = ?
    GROUP BY question_id ORDER BY ${sql.d.isInteger("question_id")} DESC, ${sql.d.asInteger("question_id")}, ${sql.d.binary("question_id")}`,
    [runId],
  )) as { q: string; correct: number | null }[];
  const i = rows.findIndex((r) => r.q === questionId);
  const failing = (r: { correct: number | null }) => r.correct === 0;
  const before = rows.slice(0, Math.max(0, i));
  const after = rows.slice(i + 1);
  return {
    prev: before.at(-1)?.q,
    next: after[0]?.q,
    prevFailing: before.filter(failing).at(-1)?.q,
    nextFailing: after.find(failing)?.q,
    position: i + 1,
    total: rows.length,
  };
}

/** The same question in the other runs of the same dataset (or benchmark, when no dataset is linked). */
export async function listOtherRuns(
  sql: Sql,
  runId: string,
  questionId: string,
): Promise<
  {
    id: string;
    name: string;
    system: string;
    model: string;
    exOutcome: string | null;
    recordedCorrect: number | null;
    /** A run of single reruns, a sweep's run, or a run of its own (imported, or promoted reruns). */
    kind: RunKind;
  }[]
> {
  return (await sql.all(
    `SELECT r.id, r.name, r.system, r.model, min(t.ex_outcome) AS exOutcome, min(t.recorded_correct) AS recordedCorrect,
      ${runKindSql(sql)} AS kind
    FROM runs r JOIN traces t ON t.run_id = r.id JOIN runs me ON me.id = ?
    WHERE r.id != me.id AND t.question_id = ? AND ((me.dataset_id IS NOT NULL AND r.dataset_id = me.dataset_id) OR (me.dataset_id IS NULL AND me.benchmark IS NOT NULL AND r.benchmark = me.benchmark))
    GROUP BY r.id, r.name, r.system, r.model, r.config ORDER BY ${sql.d.binary("r.system")}, ${sql.d.binary("r.model")}, ${sql.d.binary("r.name")}`,
    [runId, questionId],
  )) as never;
}

export type RunKind = "reruns" | "sweep" | "run";

/** What a run is, from its config: a run of single reruns (outside every figure), a sweep's run, or a run. */
function runKindSql(sql: Sql): string {
  return `CASE WHEN ${sql.d.jsonValue("r.config", "reruns")} IS NOT NULL THEN 'reruns' WHEN ${sql.d.jsonValue("r.config", "sweep")} IS NOT NULL THEN 'sweep' ELSE 'run' END`;
}

export interface RerunRow {
  traceId: string;
  runId: string;
  runName: string;
  system: string;
  model: string;
  sample: number;
  status: string;
  exOutcome: string | null;
  createdAt: string;
  simulated: boolean;
  /** Where the rerun is now: still in a run of reruns (outside every figure), in a sweep's run, or promoted. */
  kind: RunKind;
}

/** The reruns of a trace (its children, `meta.rerun_of`), newest first. */
export async function listRerunsOf(sql: Sql, traceId: string, limit = 20): Promise<RerunRow[]> {
  return (
    (await sql.all(
      `SELECT t.id AS traceId, r.id AS runId, r.name AS runName, r.system, r.model, t.sample, t.status, t.ex_outcome AS exOutcome,
           t.created_at AS createdAt, coalesce(${sql.d.jsonValue("r.config", "simulated")}, 0) AS simulated,
           ${runKindSql(sql)} AS kind
         FROM traces t JOIN runs r ON r.id = t.run_id
         WHERE ${sql.d.jsonText("t.meta", "rerun_of.trace_id")} = ? ORDER BY t.created_at DESC LIMIT ?`,
      [traceId, limit],
    )) as (Omit<RerunRow, "simulated"> & { simulated: number })[]
  ).map((r) => ({ ...r, simulated: Boolean(r.simulated) }));
}

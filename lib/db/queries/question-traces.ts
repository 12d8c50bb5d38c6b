import type { Db } from "@/lib/db/client";
import type { TraceRow } from "@/lib/db/schema";
import { EFFECTIVE_CORRECT } from "./metrics-sql";

/** The trace of one question (and sample) in a run, every column. */
export function getQuestionTrace(db: Db, runId: string, questionId: string, sample: number): TraceRow | undefined {
  return db.query.traces
    .findFirst({
      where: (t, { and, eq }) => and(eq(t.runId, runId), eq(t.questionId, questionId), eq(t.sample, sample)),
    })
    .sync();
}

export function listSamples(db: Db, runId: string, questionId: string): number[] {
  return (
    db.$client
      .prepare("SELECT sample FROM traces WHERE run_id = ? AND question_id = ? ORDER BY sample")
      .all(runId, questionId) as { sample: number }[]
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
export function getNeighbours(db: Db, runId: string, questionId: string): Neighbours {
  const rows = db.$client
    .prepare(
      `SELECT question_id AS q, min(${EFFECTIVE_CORRECT}) AS correct FROM traces t WHERE t.run_id = ?
    GROUP BY question_id ORDER BY (CAST(question_id AS INTEGER) = question_id) DESC, CAST(question_id AS INTEGER), question_id`,
    )
    .all(runId) as { q: string; correct: number | null }[];
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
export function listOtherRuns(
  db: Db,
  runId: string,
  questionId: string,
): {
  id: string;
  name: string;
  system: string;
  model: string;
  exOutcome: string | null;
  recordedCorrect: number | null;
}[] {
  return db.$client
    .prepare(
      `SELECT r.id, r.name, r.system, r.model, min(t.ex_outcome) AS exOutcome, min(t.recorded_correct) AS recordedCorrect
    FROM runs r JOIN traces t ON t.run_id = r.id JOIN runs me ON me.id = ?
    WHERE r.id != me.id AND t.question_id = ? AND ((me.dataset_id IS NOT NULL AND r.dataset_id = me.dataset_id) OR (me.dataset_id IS NULL AND me.benchmark IS NOT NULL AND r.benchmark = me.benchmark))
    GROUP BY r.id ORDER BY r.system, r.model, r.name`,
    )
    .all(runId, questionId) as never;
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
}

/** The reruns of a trace (its children, `meta.rerun_of`), newest first. */
export function listRerunsOf(db: Db, traceId: string, limit = 20): RerunRow[] {
  return (
    db.$client
      .prepare(
        `SELECT t.id AS traceId, r.id AS runId, r.name AS runName, r.system, r.model, t.sample, t.status, t.ex_outcome AS exOutcome,
           t.created_at AS createdAt, coalesce(json_extract(r.config, '$.simulated'), 0) AS simulated
         FROM traces t JOIN runs r ON r.id = t.run_id
         WHERE json_extract(t.meta, '$.rerun_of.trace_id') = ? ORDER BY t.created_at DESC LIMIT ?`,
      )
      .all(traceId, limit) as (Omit<RerunRow, "simulated"> & { simulated: number })[]
  ).map((r) => ({ ...r, simulated: Boolean(r.simulated) }));
}

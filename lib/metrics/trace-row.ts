/**
 * A trace as a run's question table lists it (lib/db/queries/traces.ts reads it; the CSV export and the table draw
 * it). Defined here, beside what computes on it, so the pure layers need nothing of the store.
 */
export interface TraceListRow {
  id: string;
  runId: string;
  questionId: string;
  /** The first 300 characters of the question. */
  questionText: string | null;
  sample: number;
  dbId: string | null;
  difficulty: string | null;
  stepCount: number;
  toolCallCount: number;
  /** Null when the trace recorded no token usage. */
  tokens: number | null;
  /** The trace's labels (and its steps'), comma-separated; null when none. */
  labels: string | null;
  status: string;
  recordedCorrect: number | null;
  exOutcome: string | null;
  exError: string | null;
  exploratoryCalls: number;
  goldCount: number | null;
  overExploration: number | null;
  extraTableCount: number | null;
  emptyProbeCount: number | null;
}

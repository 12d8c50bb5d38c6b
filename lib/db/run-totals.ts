/**
 * Runs' totals (RunAggregates, docs/metrics.md) kept in `run_totals` as of each run's version, so that the home page
 * lists runs without aggregating every trace of the store, and a run page's summary is read, not computed, after a
 * restart. A run's totals are written when an upload, an evaluation or a recompute commits (in its transaction), and
 * otherwise by the first read that finds them behind the run's version: that read computes the stale runs' totals
 * alone and stores them in the background (a page never waits for the store's write lock).
 */
import type { Sql } from "./sql";
import { insertRows, many, qb, type Tables } from "./typed";
import { inJsonArray } from "./typed-sql";
import type { RunAggregates } from "@/lib/metrics/run-metrics";
import type { Insertable } from "kysely";
import { runAggregateColumns } from "./run-aggregates";

/** Each aggregate's column in `run_totals`. */
export const TOTAL_COLUMNS = {
  traces: "traces",
  questions: "questions",
  judged: "judged",
  correct: "correct",
  exJudged: "ex_judged",
  exCorrect: "ex_correct",
  recordedJudged: "recorded_judged",
  recordedCorrect: "recorded_correct",
  exploratoryWithGold: "exploratory_with_gold",
  goldSum: "gold_sum",
  failedWithExtra: "failed_with_extra",
  inputTokens: "input_tokens",
  outputTokens: "output_tokens",
  tokensRecorded: "tokens_recorded",
  goldErrors: "gold_errors",
  cost: "cost",
  directiveOverheadCost: "directive_overhead_cost",
  unpricedTraces: "unpriced_traces",
  directiveRecall: "directive_recall",
  directiveFlagRate: "directive_flag_rate",
  emptyProbes: "empty_probes",
  probeTraces: "probe_traces",
  linkTruePositive: "link_tp",
  linkPredicted: "link_pred",
  linkGold: "link_gold",
} as const satisfies Record<keyof RunAggregates, keyof Tables["run_totals"]>;

const KEYS = Object.keys(TOTAL_COLUMNS) as (keyof RunAggregates)[];

/** Numbers as numbers (PostgreSQL's averages and sums arrive as numeric text without the pool's parsers). */
function normalise(row: Record<string, unknown>): RunAggregates {
  const out = {} as Record<string, number | null>;
  for (const k of KEYS) out[k] = row[k] === null || row[k] === undefined ? null : Number(row[k]);
  return out as unknown as RunAggregates;
}

/** The runs' totals computed from their traces, with the versions they are true of (one statement: one snapshot). */
export async function computeRunTotals(
  sql: Sql,
  runIds: readonly string[],
): Promise<Map<string, { version: number; totals: RunAggregates }>> {
  if (!runIds.length) return new Map();
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("runs as r")
      .leftJoin("traces as t", "t.run_id", "r.id")
      .select((eb) => ["r.id as runId", "r.version as version", ...runAggregateColumns(sql, eb)])
      .where((eb) => inJsonArray(sql, eb, "r.id", runIds))
      .groupBy(["r.id", "r.version"]),
  );
  return new Map(rows.map((r) => [r.runId, { version: Number(r.version), totals: normalise(r) }]));
}

/** Stores runs' totals (inside the caller's transaction, or as a statement of its own). */
export async function storeRunTotals(sql: Sql, computed: Map<string, { version: number; totals: RunAggregates }>) {
  if (!computed.size) return;
  const rows = [...computed].map(([runId, { version, totals }]) => {
    const row: Record<string, unknown> = { run_id: runId, version };
    for (const k of KEYS) row[TOTAL_COLUMNS[k]] = totals[k];
    return row as Insertable<Tables["run_totals"]>;
  });
  const ids = rows.map((r) => r.run_id);
  await sql.transaction(async (tx) => {
    await tx.compiled.run(...deleteOf(tx, ids));
    await insertRows(tx, "run_totals", rows);
  });
}

function deleteOf(sql: Sql, ids: string[]): [string, never[]] {
  const c = qb(sql)
    .deleteFrom("run_totals")
    .where((eb) => inJsonArray(sql, eb, "run_id", ids))
    .compile();
  return [c.sql, c.parameters as never[]];
}

/** Computes and stores the totals of runs whose traces just changed (an upload, an evaluation, a recompute). */
export async function refreshRunTotals(sql: Sql, runIds: readonly string[]): Promise<void> {
  await storeRunTotals(sql, await computeRunTotals(sql, runIds));
}

/**
 * The runs' totals as of their current versions: stored ones where they are current, the others computed now (and
 * stored in the background, unless `store` is false).
 */
export async function readRunTotals(
  sql: Sql,
  runIds: readonly string[],
  options: { store?: boolean } = {},
): Promise<Map<string, RunAggregates>> {
  if (!runIds.length) return new Map();
  const stored = await many(
    sql,
    qb(sql)
      .selectFrom("runs as r")
      .leftJoin("run_totals as rt", (j) => j.onRef("rt.run_id", "=", "r.id").onRef("rt.version", "=", "r.version"))
      .select((eb) => [
        "r.id as runId",
        "rt.run_id as current",
        ...KEYS.map((k) => eb.ref(`rt.${TOTAL_COLUMNS[k]}`).as(k)),
      ])
      .where((eb) => inJsonArray(sql, eb, "r.id", runIds)),
  );
  const out = new Map<string, RunAggregates>();
  const stale: string[] = [];
  for (const row of stored) {
    if (row.current === null) stale.push(row.runId);
    else out.set(row.runId, normalise(row));
  }
  if (stale.length) {
    const computed = await computeRunTotals(sql, stale);
    for (const [id, c] of computed) out.set(id, c.totals);
    // Stored once the write lock is free; the page goes on with what it computed. A failure only costs the next
    // read the same computation.
    if (options.store !== false) void storeRunTotals(sql, computed).catch(() => undefined);
  }
  return out;
}

/** The totals of no traces (a run that does not exist): counts 0, sums of measured values unknown. */
export const emptyTotals: RunAggregates = {
  traces: 0,
  questions: 0,
  judged: 0,
  correct: 0,
  exJudged: 0,
  exCorrect: 0,
  recordedJudged: 0,
  recordedCorrect: 0,
  exploratoryWithGold: null,
  goldSum: null,
  failedWithExtra: null,
  inputTokens: 0,
  outputTokens: 0,
  tokensRecorded: 0,
  goldErrors: 0,
  cost: null,
  directiveOverheadCost: null,
  unpricedTraces: 0,
  directiveRecall: null,
  directiveFlagRate: null,
  emptyProbes: null,
  probeTraces: 0,
  linkTruePositive: 0,
  linkPredicted: 0,
  linkGold: 0,
};

/**
 * The directive-savings estimate of a run without directives (lib/metrics/directive-savings.ts): loads the run's
 * traces with their exploratory calls and questions, computes each question's oracle and computed directives
 * offline, and compares with the measured over-exploration of runs of the same dataset that had directives.
 */
import { cachedByRun } from "@/lib/db/queries/run-cache";
import { estimateSavings, type SavingsEstimate, type SavingsTrace } from "@/lib/metrics/directive-savings";
import { overExploration } from "@/lib/metrics/stats";
import { loadDatabaseFrom, type DatabaseInfo } from "./database-info";
import type { Sql } from "@/lib/db/sql";
import { directivesFor, SYSTEM_OF } from "./directives";

export interface DirectiveSavings {
  oracle: SavingsEstimate;
  computed: SavingsEstimate;
  /** Runs of the same dataset that had directives: what they measured (same model first). */
  measuredRuns: {
    id: string;
    name: string;
    system: string;
    model: string;
    strategy: string;
    over: number | null;
    traces: number;
  }[];
}

export async function computeDirectiveSavings(
  sql: Sql,
  runId: string,
  options: { indexDir?: string } = {},
): Promise<DirectiveSavings | null> {
  const run = (await sql.get("SELECT dataset_id AS datasetId, model FROM runs WHERE id = ?", [runId])) as
    { datasetId: string | null; model: string } | undefined;
  if (!run?.datasetId) return null;
  const withDirectives = (
    (await sql.get("SELECT count(*) AS n FROM traces WHERE run_id = ? AND directives IS NOT NULL", [runId])) as {
      n: number;
    }
  ).n;
  if (withDirectives > 0) return null;
  const traces = (await sql.all(
    `SELECT t.id, t.question_id AS questionId, q.db_id AS dbId, q.text, q.evidence, q.gold_sql AS goldSql, q.gold_tables AS goldTables
    FROM traces t JOIN questions q ON q.dataset_id = ? AND q.question_id = t.question_id WHERE t.run_id = ?`,
    [run.datasetId, runId],
  )) as {
    id: string;
    questionId: string;
    dbId: string;
    text: string;
    evidence: string | null;
    goldSql: string | null;
    goldTables: string | null;
  }[];
  const callsOf = (traceId: string) =>
    sql.all<{ tables: string | null }>("SELECT tables FROM steps WHERE trace_id = ? AND exploratory = 1 ORDER BY seq", [
      traceId,
    ]);
  const databases = new Map<string, DatabaseInfo | null>();
  const database = async (dbId: string) => {
    if (!databases.has(dbId)) {
      try {
        databases.set(dbId, await loadDatabaseFrom(sql, run.datasetId!, dbId));
      } catch {
        databases.set(dbId, null);
      }
    }
    return databases.get(dbId)!;
  };
  const oracle: SavingsTrace[] = [];
  const computed: SavingsTrace[] = [];
  for (const t of traces) {
    const gold = t.goldTables ? (JSON.parse(t.goldTables) as string[]) : null;
    const calls = (await callsOf(t.id)).map((r) => (r.tables ? (JSON.parse(r.tables) as string[]) : []));
    const db = await database(t.dbId);
    const question = {
      id: t.questionId,
      dbId: t.dbId,
      text: t.text,
      evidence: t.evidence,
      goldSql: t.goldSql,
      goldTables: gold,
    };
    const o = db && gold ? await directivesFor("oracle", question, db) : null;
    const c = db ? await directivesFor("computed", question, db, { indexDir: options.indexDir }) : null;
    oracle.push({ gold, exploratoryCalls: calls, flagged: o?.irrelevant ?? null });
    computed.push({ gold, exploratoryCalls: calls, flagged: c?.irrelevant ?? null });
  }
  const rows = (await sql.all(
    `SELECT r.id, r.name, r.system, r.model, ${sql.d.jsonText("t.directives", "strategy")} AS strategy, count(*) AS traces,
      sum(CASE WHEN t.gold_count IS NOT NULL THEN t.exploratory_calls END) AS exploratory, sum(t.gold_count) AS gold
    FROM runs r JOIN traces t ON t.run_id = r.id
    WHERE r.dataset_id = ? AND r.id != ? AND t.directives IS NOT NULL
    GROUP BY r.id, r.name, r.system, r.model, ${sql.d.jsonText("t.directives", "strategy")}
    ORDER BY (r.model = ?) DESC, ${sql.d.binary("r.system")}, ${sql.d.binary("r.name")}`,
    [run.datasetId, runId, run.model],
  )) as {
    id: string;
    name: string;
    system: string;
    model: string;
    strategy: string;
    traces: number;
    exploratory: number | null;
    gold: number | null;
  }[];
  return {
    oracle: estimateSavings(oracle),
    computed: estimateSavings(computed),
    measuredRuns: rows.map((r) => ({
      id: r.id,
      name: r.name,
      system: r.system,
      model: r.model,
      strategy:
        r.strategy === "oracle" ? SYSTEM_OF.oracle : r.strategy === "computed" ? SYSTEM_OF.computed : r.strategy,
      traces: r.traces,
      over: r.gold ? overExploration([{ exploratory: r.exploratory ?? 0, gold: r.gold }]) : null,
    })),
  };
}

/** The directive-savings estimate of a run without directives, memoised by run version (it computes directives). */
export function getDirectiveSavings(sql: Sql, runId: string): Promise<DirectiveSavings | null> {
  return cachedByRun(sql, runId, "directive-savings", () => computeDirectiveSavings(sql, runId));
}

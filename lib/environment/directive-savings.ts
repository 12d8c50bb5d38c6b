/**
 * The directive-savings estimate of a run without directives (lib/metrics/directive-savings.ts): loads the run's
 * traces with their exploratory calls and questions, computes each question's oracle and computed directives
 * offline, and compares with the measured over-exploration of runs of the same dataset that had directives.
 */
import { cachedByRun, type CacheMode } from "@/lib/db/queries/run-cache";
import { estimateSavings, type SavingsEstimate, type SavingsTrace } from "@/lib/metrics/directive-savings";
import { overExploration } from "@/lib/metrics/stats";
import { loadDatabaseFrom, type DatabaseInfo } from "./database-info";
import type { Sql } from "@/lib/db/sql";
import { binary, count, countN, many, one, qb } from "@/lib/db/typed";
import { jsonText } from "@/lib/db/typed-sql";
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
  const q = qb(sql);
  const run = await one(sql, q.selectFrom("runs").select(["dataset_id as datasetId", "model"]).where("id", "=", runId));
  if (!run?.datasetId) return null;
  const datasetId = run.datasetId;
  const withDirectives = await count(
    sql,
    q.selectFrom("traces").select(countN).where("run_id", "=", runId).where("directives", "is not", null),
  );
  if (withDirectives > 0) return null;
  const traces = await many(
    sql,
    q
      .selectFrom("traces as t")
      .innerJoin("questions as q", (j) =>
        j.on("q.dataset_id", "=", datasetId).onRef("q.question_id", "=", "t.question_id"),
      )
      .select([
        "t.id",
        "t.question_id as questionId",
        "q.db_id as dbId",
        "q.text",
        "q.evidence",
        "q.gold_sql as goldSql",
        "q.gold_tables as goldTables",
      ])
      .where("t.run_id", "=", runId),
  );
  const callsOf = (traceId: string) =>
    many(
      sql,
      q
        .selectFrom("steps")
        .select("tables")
        .where("trace_id", "=", traceId)
        .where("exploratory", "=", 1)
        .orderBy("seq"),
    );
  const databases = new Map<string, DatabaseInfo | null>();
  const database = async (dbId: string) => {
    if (!databases.has(dbId)) {
      try {
        databases.set(dbId, await loadDatabaseFrom(sql, datasetId, dbId));
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
  const rows = await many(
    sql,
    q
      .selectFrom("runs as r")
      .innerJoin("traces as t", "t.run_id", "r.id")
      .select((eb) => [
        "r.id",
        "r.name",
        "r.system",
        "r.model",
        jsonText(sql, eb, "t.directives", "strategy").as("strategy"),
        eb.fn.countAll<number>().as("traces"),
        eb.fn
          .sum<number | null>(eb.case().when("t.gold_count", "is not", null).then(eb.ref("t.exploratory_calls")).end())
          .as("exploratory"),
        eb.fn.sum<number | null>("t.gold_count").as("gold"),
      ])
      .where("r.dataset_id", "=", datasetId)
      .where("r.id", "!=", runId)
      .where("t.directives", "is not", null)
      .groupBy((eb) => ["r.id", "r.name", "r.system", "r.model", jsonText(sql, eb, "t.directives", "strategy")])
      .orderBy((eb) => eb("r.model", "=", run.model), "desc")
      .orderBy(binary(sql, "r.system"))
      .orderBy(binary(sql, "r.name")),
  );
  return {
    oracle: estimateSavings(oracle),
    computed: estimateSavings(computed),
    measuredRuns: rows.map((r) => ({
      id: r.id,
      name: r.name,
      system: r.system,
      model: r.model,
      strategy:
        r.strategy === "oracle"
          ? SYSTEM_OF.oracle
          : r.strategy === "computed"
            ? SYSTEM_OF.computed
            : (r.strategy ?? "strategy not recorded"),
      traces: r.traces,
      over: r.gold ? overExploration([{ exploratory: r.exploratory ?? 0, gold: r.gold }]) : null,
    })),
  };
}

/** The directive-savings estimate of a run without directives, memoised by run version (it computes directives). */
export function getDirectiveSavings(sql: Sql, runId: string, mode?: CacheMode): Promise<DirectiveSavings | null> {
  return cachedByRun(sql, runId, "directive-savings", () => computeDirectiveSavings(sql, runId), mode);
}

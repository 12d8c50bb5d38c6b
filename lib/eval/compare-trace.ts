/** Runs a trace's final SQL and its gold SQL side by side (through the sandbox) and diffs their results. */
import { extractSql } from "@/lib/sql/extract-sql";
import type { Sql } from "@/lib/db/sql";
import { one, qb } from "@/lib/db/typed";
import { diffResults, type ResultDiff } from "./result-diff";
import { sharedSandbox, type SqlSandbox, type QueryResult } from "@/lib/sandbox/sandbox";

export type TraceResults =
  | { ok: false; reason: string }
  | { ok: true; gold: QueryResult; pred: QueryResult; diff: ResultDiff | null; schemaOnly: boolean };

const PREVIEW_ROWS = 200;
const MAX_ROWS = 10_000;

/** With no sandbox given, the process-wide one (a server's requests share its workers and queue); a given one stays open. */
export async function compareTraceResults(sql: Sql, traceId: string, given?: SqlSandbox): Promise<TraceResults> {
  const sandbox = given ?? sharedSandbox();
  const t = await one(
    sql,
    qb(sql)
      .selectFrom("traces as t")
      .innerJoin("runs as r", "r.id", "t.run_id")
      .select(["t.final_sql as finalSql", "t.gold_sql as goldSql", "t.db_id as dbId", "r.dataset_id as datasetId"])
      .where("t.id", "=", traceId),
  );
  if (!t) return { ok: false, reason: "no such trace" };
  if (!t.finalSql) return { ok: false, reason: "the trace has no final SQL" };
  if (!t.goldSql) return { ok: false, reason: "the question has no gold SQL" };
  if (!t.datasetId || !t.dbId) return { ok: false, reason: "the run is not linked to a dataset with this database" };
  const db = await one(
    sql,
    qb(sql)
      .selectFrom("databases")
      .select(["path", "schema_only as schemaOnly"])
      .where("id", "=", `${t.datasetId}:${t.dbId}`),
  );
  if (!db) return { ok: false, reason: `database ${t.dbId} is not registered` };
  const [gold, pred] = await Promise.all([
    sandbox.run(db.path, t.goldSql, MAX_ROWS),
    sandbox.run(db.path, extractSql(t.finalSql).sql, MAX_ROWS),
  ]);
  const diff = gold.ok && pred.ok ? diffResults(gold.rows, pred.rows, PREVIEW_ROWS) : null;
  const preview = (r: QueryResult): QueryResult => (r.ok ? { ...r, rows: r.rows.slice(0, PREVIEW_ROWS) } : r);
  return { ok: true, gold: preview(gold), pred: preview(pred), diff, schemaOnly: Number(db.schemaOnly) === 1 };
}

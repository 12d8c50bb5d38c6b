/**
 * Execution accuracy of a run: each trace's final SQL and its question's gold SQL run through the sandbox on
 * the question's registered database and their results are compared (compare.ts). Gold results are cached per
 * (database file SHA-256, gold SQL). The recorded `outcome.correct` stays beside the re-evaluated outcome.
 */
import { createHash } from "node:crypto";
import { extractSql } from "@/lib/sql/extract-sql";
import type { Sql } from "@/lib/db/sql";
import { many, one, qb, write } from "@/lib/db/typed";
import { inJsonArray } from "@/lib/db/typed-sql";
import { refreshRunTotals } from "@/lib/db/run-totals";
import { compareModes, resultsMatch, rowKey, type CompareMode, type NumericMode } from "./compare";
import { csvAnswerColumns, resultColumns, spider2Match, type Cell, type Spider2Standard } from "./spider2";
import { SqlSandbox, type QueryResult, type SqlValue } from "@/lib/sandbox/sandbox";
import { exOutcomes, type ExOutcome } from "./outcomes";

export { exOutcomes, type ExOutcome };

export type ExCounts = Record<ExOutcome, number>;

interface TraceRow {
  id: string;
  question_id: string;
  db_id: string | null;
  final_sql: string | null;
  gold_sql: string | null;
}
interface DbRow {
  path: string;
  sha256: string;
  schema_only: number;
}
type GoldResult = { rows: SqlValue[][]; truncated: boolean; columns?: number } | { error: string };

const encode = (v: unknown) =>
  JSON.stringify(v, (_k, x) =>
    typeof x === "bigint" ? Number(x) : x instanceof Uint8Array ? { $hex: Buffer.from(x).toString("hex") } : x,
  );
const decode = (s: string) =>
  JSON.parse(s, (_k, x) =>
    x && typeof x === "object" && typeof x.$hex === "string" ? new Uint8Array(Buffer.from(x.$hex, "hex")) : x,
  );

export interface EvaluateOptions {
  /**
   * How results compare. By default: the run's own setting when only some traces are evaluated (a rerun), else
   * Spider 2.0's rules for a Spider2-lite dataset and sets (BIRD) for any other.
   */
  mode?: CompareMode;
  /** How numbers compare; `exact` follows BIRD's and Spider's evaluators. */
  numeric?: NumericMode;
  sandbox?: SqlSandbox;
  onProgress?: (done: number, total: number) => void;
  /** Only these traces of the run (a finished rerun or sweep job); the run's settings are kept if it has some. */
  traceIds?: string[];
}

/** The comparison a run's evaluation uses unless one is chosen: Spider 2.0's for Spider2-lite, BIRD's sets otherwise. */
export function defaultCompareMode(datasetFormat: string | null | undefined): CompareMode {
  return datasetFormat === "spider2-lite" ? "spider2" : "set";
}

export async function evaluateRun(
  sql: Sql,
  runId: string,
  options: EvaluateOptions = {},
): Promise<{ run_id: string; counts: ExCounts }> {
  const q = qb(sql);
  const run = await one(
    sql,
    q
      .selectFrom("runs as r")
      .leftJoin("datasets as d", "d.id", "r.dataset_id")
      .select(["r.id", "r.dataset_id as datasetId", "r.ex_settings as settings", "d.format"])
      .where("r.id", "=", runId),
  );
  if (!run) throw new Error(`no run ${runId}`);
  const only = options.traceIds;
  const kept = only && run.settings ? (JSON.parse(run.settings) as { mode?: string; numeric?: string }) : {};
  const mode: CompareMode = options.mode ?? compareModes.find((m) => m === kept.mode) ?? defaultCompareMode(run.format);
  const numeric: NumericMode = options.numeric ?? (kept.numeric === "sig10" ? "sig10" : "exact");
  const sandbox = options.sandbox ?? new SqlSandbox();
  const traces: TraceRow[] = await many(
    sql,
    q
      .selectFrom("traces")
      .select(["id", "question_id", "db_id", "final_sql", "gold_sql"])
      .where("run_id", "=", runId)
      .$if(only !== undefined, (b) => b.where((eb) => inJsonArray(sql, eb, "id", only ?? []))),
  );
  const spider2Of = (questionId: string) =>
    one(
      sql,
      q
        .selectFrom("questions")
        .select(["gold_answers as answers", "eval_standard as standard"])
        .where("dataset_id", "=", run.datasetId ?? "")
        .where("question_id", "=", questionId),
    );
  const dbOf = (id: string): Promise<DbRow | undefined> =>
    one(sql, q.selectFrom("databases").select(["path", "sha256", "schema_only"]).where("id", "=", id));
  const cachedGold = (sha: string, key: string) =>
    one(
      sql,
      q.selectFrom("gold_results").select(["result", "error"]).where("db_sha256", "=", sha).where("sql_hash", "=", key),
    );
  const saveGold = (sha: string, key: string, result: string | null, error: string | null) =>
    write(
      sql,
      q
        .insertInto("gold_results")
        .values({ db_sha256: sha, sql_hash: key, result, error })
        .onConflict((oc) =>
          oc.columns(["db_sha256", "sql_hash"]).doUpdateSet((eb) => ({
            result: eb.ref("excluded.result"),
            error: eb.ref("excluded.error"),
          })),
        ),
    );
  const counts = Object.fromEntries(exOutcomes.map((o) => [o, 0])) as ExCounts;
  const inFlight = new Map<string, Promise<GoldResult>>();

  const goldResult = async (db: DbRow, goldSql: string): Promise<GoldResult> => {
    const key = createHash("sha256").update(goldSql).digest("hex");
    const cacheKey = `${db.sha256}:${key}`;
    let pending = inFlight.get(cacheKey);
    if (!pending) {
      pending = (async () => {
        const cached = await cachedGold(db.sha256, key);
        if (cached) return cached.error !== null ? { error: cached.error } : (decode(cached.result!) as GoldResult);
        const r = await sandbox.run(db.path, goldSql);
        const value: GoldResult = r.ok
          ? { rows: r.rows, truncated: r.truncated, columns: r.columns.length }
          : { error: r.kind === "timeout" ? `timeout: ${r.error}` : r.error };
        // Time-outs depend on the machine: not cached.
        if (r.ok || r.kind !== "timeout")
          await saveGold(db.sha256, key, r.ok ? encode(value) : null, r.ok ? null : (value as { error: string }).error);
        return value;
      })();
      inFlight.set(cacheKey, pending);
    }
    return pending;
  };

  // Equal results (as sets of rows) hash alike: the identity majority votes use.
  const resultHash = (rows: SqlValue[][]) =>
    createHash("sha256")
      .update([...new Set(rows.map((r) => rowKey(r, numeric)))].sort().join("\u0002"))
      .digest("hex")
      .slice(0, 32);

  const evaluate = async (t: TraceRow): Promise<[ExOutcome, string | null, string | null]> => {
    if (!t.final_sql) return ["no_submission", null, null];
    if (!run.datasetId) return ["not_evaluated", "the run is not linked to a dataset", null];
    if (!t.db_id) return ["not_evaluated", "the trace names no database", null];
    const db = await dbOf(`${run.datasetId}:${t.db_id}`);
    if (!db) return ["not_evaluated", `database ${t.db_id} is not registered in the dataset`, null];
    if (Number(db.schema_only)) return ["not_evaluated", "schema-only database: every result would be empty", null];
    if (mode === "spider2") return evaluateSpider2(t, db);
    if (!t.gold_sql) {
      const s2 = await spider2Of(t.question_id);
      return [
        "not_evaluated",
        s2?.answers
          ? "no gold SQL: the question's gold answers are CSV files, compared by Spider 2.0's rules (mode spider2)"
          : "no gold SQL",
        null,
      ];
    }
    const gold = await goldResult(db, t.gold_sql);
    if ("error" in gold) return ["gold_error", gold.error, null];
    if (gold.truncated)
      return ["gold_error", `gold result over the row cap of ${sandbox.limits.maxRows} (METRON_SQL_MAX_ROWS)`, null];
    const pred: QueryResult = await sandbox.run(db.path, extractSql(t.final_sql).sql);
    if (!pred.ok) return [pred.kind === "timeout" ? "timeout" : "pred_error", pred.error, null];
    if (pred.truncated)
      return [
        "wrong_result",
        `predicted result over the row cap of ${sandbox.limits.maxRows}; the gold result has ${gold.rows.length} rows`,
        null,
      ];
    return [
      resultsMatch(gold.rows, pred.rows, mode, t.gold_sql, numeric) ? "correct" : "wrong_result",
      null,
      resultHash(pred.rows),
    ];
  };

  /** Spider 2.0's rules (spider2.ts) against the question's gold answer CSVs, else against its gold SQL's result. */
  const evaluateSpider2 = async (t: TraceRow, db: DbRow): Promise<[ExOutcome, string | null, string | null]> => {
    const s2 = await spider2Of(t.question_id);
    const standard = (s2?.standard ? JSON.parse(s2.standard) : {}) as Spider2Standard;
    let golds: Cell[][][];
    if (s2?.answers) golds = (JSON.parse(s2.answers) as string[]).map(csvAnswerColumns);
    else if (t.gold_sql) {
      const gold = await goldResult(db, t.gold_sql);
      if ("error" in gold) return ["gold_error", gold.error, null];
      if (gold.truncated)
        return ["gold_error", `gold result over the row cap of ${sandbox.limits.maxRows} (METRON_SQL_MAX_ROWS)`, null];
      golds = [resultColumns(gold.rows, gold.columns)];
    } else return ["not_evaluated", "no gold SQL and no gold answer CSV", null];
    const pred: QueryResult = await sandbox.run(db.path, extractSql(t.final_sql!).sql);
    if (!pred.ok) return [pred.kind === "timeout" ? "timeout" : "pred_error", pred.error, null];
    if (pred.truncated) return ["wrong_result", `predicted result over the row cap of ${sandbox.limits.maxRows}`, null];
    const verdict = spider2Match(resultColumns(pred.rows, pred.columns.length), golds, standard);
    if (!verdict.ok) return ["gold_error", verdict.error, null];
    return [verdict.match ? "correct" : "wrong_result", null, resultHash(pred.rows)];
  };

  let done = 0;
  const results = new Map<string, [ExOutcome, string | null, string | null]>();
  const concurrency = sandbox.limits.workers * 2;
  let next = 0;
  try {
    await Promise.all(
      Array.from({ length: Math.min(concurrency, traces.length) }, async () => {
        while (next < traces.length) {
          const t = traces[next++];
          results.set(t.id, await evaluate(t));
          options.onProgress?.(++done, traces.length);
        }
      }),
    );
  } finally {
    if (!options.sandbox) await sandbox.close();
  }
  const at = new Date().toISOString();
  await sql.transaction(async (tx) => {
    for (const [id, [outcome, error, hash]] of results) {
      counts[outcome]++;
      await write(
        tx,
        qb(tx)
          .updateTable("traces")
          .set({ ex_outcome: outcome, ex_error: error, ex_result_hash: hash, evaluated_at: at })
          .where("id", "=", id),
      );
    }
    const settings = JSON.stringify({ mode, numeric, evaluated_at: at });
    await write(
      tx,
      qb(tx)
        .updateTable("runs")
        .set((eb) => ({
          version: eb("version", "+", 1),
          // Some traces only (a rerun's): the run keeps the settings it was evaluated with.
          ex_settings: only ? eb.fn.coalesce("ex_settings", eb.val(settings)) : settings,
        }))
        .where("id", "=", runId),
    );
    await refreshRunTotals(tx, [runId]);
  });
  return { run_id: runId, counts };
}

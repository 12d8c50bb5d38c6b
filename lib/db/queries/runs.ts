import { decoded } from "@/lib/db/typed";
import { runs } from "@/lib/db/schema";
import type { Sql } from "@/lib/db/sql";
import type { RunSortKey } from "@/lib/url/runs";
import type { RunAggregates } from "@/lib/metrics/run-metrics";
import { cachedByRun } from "./run-cache";
import { sql as raw, type Expression, type ExpressionBuilder } from "kysely";
import { jsonValue, nocase } from "@/lib/db/typed-sql";
import { binary, many, one, qb } from "@/lib/db/typed";
import { runAggregateColumns } from "./run-aggregates";

export interface RunListRow extends RunAggregates {
  id: string;
  name: string;
  system: string;
  model: string;
  datasetId: string | null;
  createdAt: string;
  archivedAt: string | null;
  simulated: number | null;
}

type Listed = { x: RunListRow };
type Dir = "asc" | "desc";
const ratio = (eb: ExpressionBuilder<Listed, "x">, num: Expression<unknown>, den: "x.judged" | "x.goldSum") =>
  eb
    .case()
    .when(den, ">", 0)
    .then(eb(eb(raw<number>`1.0`, "*", num as Expression<number>), "/", eb.ref(den)))
    .end();

/** Sort keys over the listed rows (a subquery, so that PostgreSQL too can order by expressions of its columns). */
const ORDER: Record<RunSortKey, (sql: Sql, eb: ExpressionBuilder<Listed, "x">) => Expression<unknown>> = {
  name: (sql, eb) => nocase(sql, eb, "x.name"),
  system: (sql, eb) => nocase(sql, eb, "x.system"),
  model: (sql, eb) => nocase(sql, eb, "x.model"),
  traces: (_, eb) => eb.ref("x.traces"),
  questions: (_, eb) => eb.ref("x.questions"),
  correct: (_, eb) => ratio(eb, eb.ref("x.correct"), "x.judged"),
  over: (_, eb) => ratio(eb, eb("x.exploratoryWithGold", "-", eb.ref("x.goldSum")), "x.goldSum"),
  tokens: (_, eb) => eb("x.inputTokens", "+", eb.ref("x.outputTokens")),
  created: (_, eb) => eb.ref("x.createdAt"),
};

export async function listRuns(
  sql: Sql,
  opts: { sort: RunSortKey; dir: Dir; system?: string | null; model?: string | null; archived?: boolean },
): Promise<RunListRow[]> {
  const q = qb(sql);
  const listed = q
    .selectFrom("runs as r")
    .leftJoin("traces as t", "t.run_id", "r.id")
    .select((eb) => [
      "r.id",
      "r.name",
      "r.system",
      "r.model",
      "r.dataset_id as datasetId",
      "r.created_at as createdAt",
      "r.archived_at as archivedAt",
      jsonValue(sql, eb, "r.config", "simulated").$castTo<number | null>().as("simulated"),
      ...runAggregateColumns(sql, eb),
    ])
    .$if(!opts.archived, (w) => w.where("r.archived_at", "is", null))
    .$if(Boolean(opts.system), (w) => w.where("r.system", "=", opts.system!))
    .$if(Boolean(opts.model), (w) => w.where("r.model", "=", opts.model!))
    .groupBy("r.id");
  const dir: Dir = opts.dir === "asc" ? "asc" : "desc";
  const rows: RunListRow[] = await many(
    sql,
    q
      .selectFrom(listed.as("x"))
      .selectAll()
      .orderBy(
        (eb) => ORDER[opts.sort](sql, eb as unknown as ExpressionBuilder<Listed, "x">),
        (o) => (dir === "asc" ? o.asc() : o.desc()).nullsLast(),
      )
      .orderBy(binary(sql, "x.id")),
  );
  return rows;
}

export async function listRunFacets(sql: Sql): Promise<{ systems: string[]; models: string[] }> {
  const col = async (c: "system" | "model") =>
    (await many(sql, qb(sql).selectFrom("runs").select(c).groupBy(c).orderBy(binary(sql, c)))).map((r) => r[c]);
  const [systems, models] = await Promise.all([col("system"), col("model")]);
  return { systems, models };
}

export function getRun(sql: Sql, id: string) {
  return decoded(sql, runs, qb(sql).selectFrom("runs").selectAll().where("id", "=", id));
}

export function getRunAggregates(sql: Sql, runId: string): Promise<RunAggregates> {
  return cachedByRun(
    sql,
    runId,
    "aggregates",
    async () =>
      (await one(
        sql,
        qb(sql)
          .selectFrom("traces as t")
          .select((eb) => runAggregateColumns(sql, eb))
          .where("t.run_id", "=", runId),
      ))!,
  );
}

export async function countOutcomes(sql: Sql, runId: string): Promise<{ outcome: string; n: number }[]> {
  const q = qb(sql);
  const outcome = q.fn.coalesce("ex_outcome", raw.lit("not evaluated yet"));
  const rows = await many(
    sql,
    q
      .selectFrom("traces")
      .select([outcome.as("outcome"), q.fn.countAll<number>().as("n")])
      .where("run_id", "=", runId)
      .groupBy(outcome)
      .orderBy("n", "desc"),
  );
  return rows.map((r) => ({ outcome: r.outcome as string, n: Number(r.n) }));
}

export async function listRunChanges(sql: Sql, runId: string): Promise<{ at: string; who: string; change: string }[]> {
  return many(
    sql,
    qb(sql)
      .selectFrom("run_changes")
      .select(["created_at as at", "who", "change"])
      .where("run_id", "=", runId)
      .orderBy("id", "desc")
      .limit(200),
  );
}

/** The distinct models of the stored runs. */
export async function listRunModels(sql: Sql): Promise<string[]> {
  const q = qb(sql);
  return (await many(sql, q.selectFrom("runs").select("model").groupBy("model").orderBy(binary(sql, "model")))).map(
    (r) => r.model,
  );
}

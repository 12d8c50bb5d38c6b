import { decoded } from "@/lib/db/typed";
import { runs } from "@/lib/db/schema";
import type { Sql } from "@/lib/db/sql";
import { pageOf, type RunSortKey } from "@/lib/url/runs";
import type { RunAggregates } from "@/lib/metrics/run-metrics";
import { sql as raw } from "kysely";
import { jsonValue } from "@/lib/db/typed-sql";
import { binary, many, qb } from "@/lib/db/typed";
import { computeRunTotals, emptyTotals, readRunTotals } from "@/lib/db/run-totals";

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

type Dir = "asc" | "desc";
const ratio = (num: number | null, den: number | null) => (den !== null && den > 0 ? (num ?? 0) / den : null);
/** ASCII letters folded, then code point: SQLite's NOCASE, and the same on PostgreSQL. */
const folded = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** Sort keys of the listed runs: a text (compared without ASCII case), a number, or null (listed last). */
const ORDER: Record<RunSortKey, (r: RunListRow) => string | number | null> = {
  name: (r) => folded(r.name),
  system: (r) => folded(r.system),
  model: (r) => folded(r.model),
  traces: (r) => r.traces,
  questions: (r) => r.questions,
  correct: (r) => ratio(r.correct, r.judged),
  over: (r) => ratio((r.exploratoryWithGold ?? 0) - (r.goldSum ?? 0), r.goldSum),
  tokens: (r) => r.inputTokens + r.outputTokens,
  created: (r) => r.createdAt,
};

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

type RunListOptions = {
  sort: RunSortKey;
  dir: Dir;
  system?: string | null;
  model?: string | null;
  archived?: boolean;
};

/** Sort keys read from the run's own row: a page of runs sorted by one of them needs the totals of that page only. */
const RUN_COLUMN_KEYS: ReadonlySet<RunSortKey> = new Set(["name", "system", "model", "created"]);

/** Sorted in place by a key, unknown values last either way, then by id. */
function sortRuns<T extends { id: string }>(rows: T[], sort: RunSortKey, dir: Dir): T[] {
  const key = ORDER[sort] as unknown as (r: T) => string | number | null;
  const sign = dir === "asc" ? 1 : -1;
  return rows.sort((a, b) => {
    const x = key(a);
    const y = key(b);
    if (x === null || y === null) {
      if (x !== y) return x === null ? 1 : -1; // unknown last, either way
    } else if (x !== y) return sign * (typeof x === "number" ? x - (y as number) : byCodePoint(x, y as string));
    return byCodePoint(a.id, b.id);
  });
}

async function selectRuns(sql: Sql, opts: RunListOptions) {
  return many(
    sql,
    qb(sql)
      .selectFrom("runs as r")
      .select((eb) => [
        "r.id",
        "r.name",
        "r.system",
        "r.model",
        "r.dataset_id as datasetId",
        "r.created_at as createdAt",
        "r.archived_at as archivedAt",
        jsonValue(sql, eb, "r.config", "simulated").$castTo<number | null>().as("simulated"),
      ])
      .$if(!opts.archived, (w) => w.where("r.archived_at", "is", null))
      .$if(Boolean(opts.system), (w) => w.where("r.system", "=", opts.system!))
      .$if(Boolean(opts.model), (w) => w.where("r.model", "=", opts.model!)),
  );
}

type RunRow = Awaited<ReturnType<typeof selectRuns>>[number];

/** The runs with their totals (run_totals, as of each run's version: never an aggregation of every trace). */
async function withTotals(sql: Sql, runsOf: RunRow[]): Promise<RunListRow[]> {
  const totals = await readRunTotals(
    sql,
    runsOf.map((r) => r.id),
  );
  // Each field named: spreading a driver's row (`...r`) cost 25–50 µs a run, 5–10 ms of the home page with 200 runs.
  return runsOf.map((r) => ({
    id: r.id,
    name: r.name,
    system: r.system,
    model: r.model,
    datasetId: r.datasetId,
    createdAt: r.createdAt,
    archivedAt: r.archivedAt,
    simulated: r.simulated === null ? null : Number(r.simulated),
    ...totals.get(r.id)!,
  }));
}

/** Every run with its totals, sorted by a key with unknown values last, then by id. */
export async function listRuns(sql: Sql, opts: RunListOptions): Promise<RunListRow[]> {
  return sortRuns(await withTotals(sql, await selectRuns(sql, opts)), opts.sort, opts.dir);
}

/**
 * One page of the home page's runs, sorted as `listRuns` sorts them, and how many runs there are. Sorted by a run's
 * own column (the default: newest first), only the page's runs' totals are read: 50, not every run of the store.
 */
export async function listRunsPage(
  sql: Sql,
  opts: RunListOptions & { page: number; pageSize: number },
): Promise<{ rows: RunListRow[]; total: number; page: number }> {
  const runsOf = await selectRuns(sql, opts);
  if (RUN_COLUMN_KEYS.has(opts.sort)) {
    const { rows, page } = pageOf(sortRuns(runsOf, opts.sort, opts.dir), opts.page, opts.pageSize);
    return { rows: await withTotals(sql, rows), total: runsOf.length, page };
  }
  const { rows, page } = pageOf(sortRuns(await withTotals(sql, runsOf), opts.sort, opts.dir), opts.page, opts.pageSize);
  return { rows, total: runsOf.length, page };
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

/** A run's totals as of its version (run_totals; computed and stored when behind). */
export async function getRunAggregates(sql: Sql, runId: string): Promise<RunAggregates> {
  const totals = (await readRunTotals(sql, [runId])).get(runId);
  if (totals) return totals;
  // No such run: the totals of no traces.
  return (await computeRunTotals(sql, [runId])).get(runId)?.totals ?? emptyTotals;
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

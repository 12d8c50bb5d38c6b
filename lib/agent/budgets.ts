/**
 * A sweep's budgets (cost, tokens, wall time) and the server's daily cap on spending: checked before each job starts
 * (lib/jobs/worker.ts asks through the agent's runner), and what stops a sweep early.
 */
import type { Sql } from "@/lib/db/sql";
import { sql as raw } from "kysely";
import { one, qb, write } from "@/lib/db/typed";
import { jsonText } from "@/lib/db/typed-sql";
import { isoNow } from "@/lib/jobs/queue";

const now = () => Date.now();

export interface Budget {
  maxCostUsd?: number;
  maxTokens?: number;
  maxWallMs?: number;
}

/** Spent today (UTC) on reruns and sweeps with a real provider, from their stored traces: recorded cost, else priced tokens; null when unpriced. */
export async function spentToday(sql: Sql): Promise<{ usd: number; unpriced: number }> {
  const r = await one(
    sql,
    qb(sql)
      .selectFrom("traces")
      .select((eb) => {
        const cost = eb.fn.coalesce("cost_usd", "cost_computed_usd");
        return [eb.fn.sum<number | null>(cost).as("usd"), eb(eb.fn.count("id"), "-", eb.fn.count(cost)).as("unpriced")];
      })
      // The traces of agent jobs, by their partial index: not every trace of the store.
      .where("rerun_job", "is not", null)
      .where("created_at", ">=", `${new Date().toISOString().slice(0, 10)}T00:00:00Z`)
      .where((eb) => eb(jsonText(sql, eb, "meta", "agent.model"), "not like", "sim-%")),
  );
  return { usd: r?.usd ?? 0, unpriced: Number(r?.unpriced ?? 0) };
}

/** Which budget a sweep has reached, in words; null while it is within all of them. */
export async function budgetReached(
  sql: Sql,
  sweepId: string,
  budget: { maxCostUsd?: number; maxTokens?: number; maxWallMs?: number },
  createdAt: string,
  provider = "simulated",
): Promise<string | null> {
  const spent = (await one(
    sql,
    qb(sql)
      .selectFrom("jobs")
      .select((eb) => {
        const doneWithout = (c: "tokens" | "cost_usd") =>
          eb.fn.count(
            eb
              .case()
              .when(eb.and([eb("state", "=", "done"), eb(c, "is", null)]))
              .then(eb.ref("id"))
              .end(),
          );
        return [
          eb.fn.coalesce(eb.fn.sum<number | null>("tokens"), raw.lit(0)).as("tokens"),
          eb.fn.coalesce(eb.fn.sum<number | null>("cost_usd"), raw.lit(0)).as("cost"),
          doneWithout("tokens").as("noTokens"),
          doneWithout("cost_usd").as("noCost"),
        ];
      })
      .where("sweep_id", "=", sweepId),
  ))!;
  // A budget the provider's answers cannot measure is not kept silently at 0 (issue 30).
  if (budget.maxTokens !== undefined && Number(spent.noTokens) > 0)
    return `a token budget, but the provider reported no usage for ${Number(spent.noTokens)} finished ${Number(spent.noTokens) === 1 ? "job" : "jobs"}: tokens spent are unknown`;
  if (budget.maxCostUsd !== undefined && provider !== "simulated" && Number(spent.noCost) > 0)
    return `a cost budget, but the cost of ${Number(spent.noCost)} finished ${Number(spent.noCost) === 1 ? "job is" : "jobs are"} unknown (no usage reported, or no price)`;
  if (budget.maxTokens !== undefined && spent.tokens >= budget.maxTokens)
    return `${spent.tokens} tokens of at most ${budget.maxTokens}`;
  if (budget.maxCostUsd !== undefined && spent.cost >= budget.maxCostUsd)
    return `$${spent.cost.toFixed(4)} of at most $${budget.maxCostUsd}`;
  if (budget.maxWallMs !== undefined && now() - Date.parse(createdAt) >= budget.maxWallMs)
    return `wall time of at most ${Math.round(budget.maxWallMs / 1000)} s`;
  // The server's daily cap on spending (METRON_DAILY_BUDGET_USD) holds for sweeps too.
  const daily = process.env.METRON_DAILY_BUDGET_USD ? Number(process.env.METRON_DAILY_BUDGET_USD) : null;
  if (daily !== null && provider !== "simulated") {
    const today = (await spentToday(sql)).usd;
    if (today >= daily)
      return `today's spending of $${today.toFixed(2)} is at the daily budget of $${daily} (METRON_DAILY_BUDGET_USD)`;
  }
  return null;
}

/** Ends a sweep early: its queued jobs are cancelled with the reason; what runs finishes. */
export async function stopSweep(sql: Sql, sweepId: string, by: "budget" | "cancel", reason: string): Promise<void> {
  const at = isoNow();
  await sql.transaction(async (tx) => {
    await write(
      tx,
      qb(tx)
        .updateTable("sweeps")
        .set({ state: by === "budget" ? "stopped" : "cancelled", stopped_by: by, finished_at: at })
        .where("run_id", "=", sweepId)
        .where("state", "in", ["running", "paused"]),
    );
    await write(
      tx,
      qb(tx)
        .updateTable("jobs")
        .set({ state: "cancelled", error: reason, finished_at: at })
        .where("sweep_id", "=", sweepId)
        .where("state", "=", "queued"),
    );
  });
}

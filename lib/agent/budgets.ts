/**
 * A sweep's budgets (cost, tokens, wall time) and the server's daily cap on spending: checked before each job starts
 * (lib/jobs/worker.ts asks through the agent's runner), and what stops a sweep early.
 */
import type { Sql } from "@/lib/db/sql";
import { isoNow } from "@/lib/jobs/queue";

const now = () => Date.now();

export interface Budget {
  maxCostUsd?: number;
  maxTokens?: number;
  maxWallMs?: number;
}

/** Spent today (UTC) on reruns and sweeps with a real provider, from their stored traces: recorded cost, else priced tokens; null when unpriced. */
export async function spentToday(sql: Sql): Promise<{ usd: number; unpriced: number }> {
  const { d } = sql;
  const r = await sql.get<{ usd: number | null; unpriced: number | null }>(
    `SELECT sum(coalesce(cost_usd, cost_computed_usd)) AS usd, sum(CASE WHEN coalesce(cost_usd, cost_computed_usd) IS NULL THEN 1 ELSE 0 END) AS unpriced
    FROM traces WHERE ${d.jsonText("meta", "rerun_job")} IS NOT NULL AND created_at >= ? AND ${d.jsonText("meta", "agent.model")} NOT LIKE 'sim-%'`,
    [`${new Date().toISOString().slice(0, 10)}T00:00:00Z`],
  );
  return { usd: r?.usd ?? 0, unpriced: r?.unpriced ?? 0 };
}

/** Which budget a sweep has reached, in words; null while it is within all of them. */
export async function budgetReached(
  sql: Sql,
  sweepId: string,
  budget: { maxCostUsd?: number; maxTokens?: number; maxWallMs?: number },
  createdAt: string,
  provider = "simulated",
): Promise<string | null> {
  const spent = (await sql.get<{ tokens: number; cost: number; noTokens: number; noCost: number }>(
    `SELECT coalesce(sum(tokens), 0) AS tokens, coalesce(sum(cost_usd), 0) AS cost,
      sum(CASE WHEN state = 'done' AND tokens IS NULL THEN 1 ELSE 0 END) AS "noTokens",
      sum(CASE WHEN state = 'done' AND cost_usd IS NULL THEN 1 ELSE 0 END) AS "noCost"
    FROM rerun_jobs WHERE sweep_id = ?`,
    [sweepId],
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
    await tx.run(
      "UPDATE sweeps SET state = ?, stopped_by = ?, finished_at = ? WHERE run_id = ? AND state IN ('running', 'paused')",
      [by === "budget" ? "stopped" : "cancelled", by, at, sweepId],
    );
    await tx.run(
      "UPDATE rerun_jobs SET state = 'cancelled', error = ?, finished_at = ? WHERE sweep_id = ? AND state = 'queued'",
      [reason, at, sweepId],
    );
  });
}

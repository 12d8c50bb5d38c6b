import { getSql } from "@/lib/db/store";
import { sweepStatus } from "@/lib/agent/sweeps";

/** A sweep's progress: jobs by state, tokens and cost against the budget, outcomes against the source run. */
export async function GET(_request: Request, ctx: RouteContext<"/api/sweeps/[runId]">) {
  const { runId } = await ctx.params;
  const status = await sweepStatus(await getSql(), runId);
  return status ? Response.json(status) : Response.json({ error: `run ${runId} is not a sweep` }, { status: 404 });
}

import { cancelRerun } from "@/lib/agent/reruns";
import { getDb, openConnection } from "@/lib/db/client";

export async function POST(_request: Request, ctx: RouteContext<"/api/reruns/[jobId]/cancel">) {
  const { jobId } = await ctx.params;
  getDb();
  return cancelRerun(() => openConnection(), jobId)
    ? Response.json({ cancelled: true })
    : Response.json({ error: `no running rerun ${jobId}` }, { status: 404 });
}

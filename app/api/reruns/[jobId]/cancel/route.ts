import { cancelRerun } from "@/lib/agent/reruns";
import { getDb } from "@/lib/db/client";
import { storeOpener } from "@/lib/db/store";

export async function POST(_request: Request, ctx: RouteContext<"/api/reruns/[jobId]/cancel">) {
  const { jobId } = await ctx.params;
  getDb();
  return (await cancelRerun(storeOpener(), jobId))
    ? Response.json({ cancelled: true })
    : Response.json({ error: `no running rerun ${jobId}` }, { status: 404 });
}

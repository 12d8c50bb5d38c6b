import { cancelRerun } from "@/lib/agent/reruns";
import { getSql, storeOpener } from "@/lib/db/store";

export async function POST(_request: Request, ctx: RouteContext<"/api/reruns/[jobId]/cancel">) {
  const { jobId } = await ctx.params;
  await getSql();
  return (await cancelRerun(storeOpener(), jobId))
    ? Response.json({ cancelled: true })
    : Response.json({ error: `no running rerun ${jobId}` }, { status: 404 });
}

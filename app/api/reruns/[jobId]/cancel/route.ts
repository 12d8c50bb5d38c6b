import { cancelRerun } from "@/lib/agent/reruns";

export async function POST(_request: Request, ctx: RouteContext<"/api/reruns/[jobId]/cancel">) {
  const { jobId } = await ctx.params;
  return cancelRerun(jobId)
    ? Response.json({ cancelled: true })
    : Response.json({ error: `no running rerun ${jobId}` }, { status: 404 });
}

import { getSql } from "@/lib/db/store";
import { getStepDetail } from "@/lib/db/queries/steps";
import { renderStepDetail } from "@/lib/highlight/step-detail";

/** One step in full: arguments and result, highlighted on the server. */
export async function GET(_request: Request, ctx: RouteContext<"/api/traces/[traceId]/steps/[seq]">) {
  const { traceId, seq } = await ctx.params;
  const n = Number(seq);
  if (!Number.isInteger(n) || n < 0)
    return Response.json({ error: `step must be a non-negative integer, got "${seq}"` }, { status: 400 });
  const detail = await getStepDetail(await getSql(), traceId, n);
  if (!detail) return Response.json({ error: `no step ${n} in trace ${traceId}` }, { status: 404 });
  return Response.json(await renderStepDetail(detail, traceId));
}

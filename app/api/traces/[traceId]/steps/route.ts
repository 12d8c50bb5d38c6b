import { z } from "zod";
import { getSql } from "@/lib/db/store";
import { listStepSummaries } from "@/lib/db/queries/steps";
import { traceExists } from "@/lib/db/queries/traces";
import { invalidBody } from "@/lib/http/invalid";

const query = z.object({
  from: z.coerce.number().int().nonnegative().default(0),
  limit: z.coerce.number().int().positive().max(1000).default(200),
});

/** A window of timeline rows; the page loads them as the timeline scrolls, never the whole trace at once. */
export async function GET(request: Request, ctx: RouteContext<"/api/traces/[traceId]/steps">) {
  const { traceId } = await ctx.params;
  const parsed = query.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) return invalidBody(parsed.error);
  const sql = await getSql();
  if (!(await traceExists(sql, traceId))) return Response.json({ error: `no trace ${traceId}` }, { status: 404 });
  return Response.json({ steps: await listStepSummaries(sql, traceId, parsed.data.from, parsed.data.limit) });
}

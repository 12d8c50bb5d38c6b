import { getSql } from "@/lib/db/store";
import { getStepDetail } from "@/lib/db/queries/steps";
import { getTraceSql } from "@/lib/db/queries/traces";

/**
 * The whole text of one field of a trace, as recorded: `field=final_sql|gold_sql`, or `field=args|result&seq=N` of a
 * step. Pages show at most `METRON_DISPLAY_MAX_CHARS` of a text and link here for the rest.
 */
export async function GET(request: Request, ctx: RouteContext<"/api/traces/[traceId]/text">) {
  const { traceId } = await ctx.params;
  const params = new URL(request.url).searchParams;
  const field = params.get("field");
  let text: string | null | undefined;
  if (field === "final_sql" || field === "gold_sql") text = await getTraceSql(await getSql(), traceId, field);
  else if (field === "args" || field === "result") {
    const seq = Number(params.get("seq"));
    if (!Number.isInteger(seq) || seq < 0)
      return Response.json({ error: `seq must be a step number, got "${params.get("seq")}"` }, { status: 400 });
    const step = await getStepDetail(await getSql(), traceId, seq);
    text = step ? step[field] : undefined;
  } else
    return Response.json(
      { error: `field must be final_sql, gold_sql, args or result, got "${field}"` },
      { status: 400 },
    );
  if (text === undefined) return Response.json({ error: `no such trace or step in ${traceId}` }, { status: 404 });
  if (text === null) return Response.json({ error: `${field} is not recorded in this trace` }, { status: 404 });
  return new Response(text, {
    headers: { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" },
  });
}

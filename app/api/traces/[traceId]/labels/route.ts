import { getSql } from "@/lib/db/store";
import { z } from "zod";
import { LabelError, listLabels, setLabel } from "@/lib/labels/labels";
import { invalidBody } from "@/lib/http/invalid";

const body = z.object({
  label: z.string().min(1).max(200),
  seq: z.number().int().min(-1).optional(),
  on: z.boolean().default(true),
});

export async function GET(_request: Request, ctx: RouteContext<"/api/traces/[traceId]/labels">) {
  const { traceId } = await ctx.params;
  return Response.json(await listLabels(await getSql(), traceId));
}

/** Sets (`on: true`) or removes a label on the trace, or on one of its steps (`seq`). */
export async function POST(request: Request, ctx: RouteContext<"/api/traces/[traceId]/labels">) {
  const { traceId } = await ctx.params;
  const parsed = body.safeParse(await request.json().catch(() => null));
  if (!parsed.success) return invalidBody(parsed.error);
  const sql = await getSql();
  try {
    await setLabel(sql, traceId, parsed.data.label, {
      seq: parsed.data.seq,
      on: parsed.data.on,
      who: request.headers.get("x-metron-principal") ?? "local",
    });
  } catch (e) {
    if (e instanceof LabelError) return Response.json({ error: e.message }, { status: 404 });
    throw e;
  }
  return Response.json(await listLabels(sql, traceId));
}

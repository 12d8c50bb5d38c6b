import { getSql } from "@/lib/db/store";
import { z } from "zod";
import { LabelError, setNote } from "@/lib/labels/labels";

const body = z.object({ note: z.string().max(10_000), seq: z.number().int().min(-1).optional() });

/** Sets the note of the trace or of one of its steps (`seq`); empty text removes it. */
export async function POST(request: Request, ctx: RouteContext<"/api/traces/[traceId]/note">) {
  const { traceId } = await ctx.params;
  const parsed = body.safeParse(await request.json().catch(() => null));
  if (!parsed.success) return Response.json({ error: "body: { note: string, seq?: integer }" }, { status: 400 });
  try {
    await setNote(await getSql(), traceId, parsed.data.note, {
      seq: parsed.data.seq,
      who: request.headers.get("x-metron-principal") ?? "local",
    });
  } catch (e) {
    if (e instanceof LabelError) return Response.json({ error: e.message }, { status: 404 });
    throw e;
  }
  return Response.json({ saved: true });
}

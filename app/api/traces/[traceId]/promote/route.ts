import { getSql } from "@/lib/db/store";
import { z } from "zod";
import { invalidBody } from "@/lib/http/invalid";
import { CurationError } from "@/lib/ingest/curate";
import { promoteTrace } from "@/lib/ingest/promote";

const body = z.object({ run: z.string().min(1).max(200) });

/** Promotes a rerun into a named run of its system and model (created if needed). */
export async function POST(request: Request, ctx: RouteContext<"/api/traces/[traceId]/promote">) {
  const { traceId } = await ctx.params;
  const parsed = body.safeParse(await request.json().catch(() => null));
  if (!parsed.success) return invalidBody(parsed.error);
  try {
    const r = await promoteTrace(
      await getSql(),
      traceId,
      parsed.data.run,
      request.headers.get("x-metron-principal") ?? "local",
    );
    return Response.json(r);
  } catch (e) {
    if (e instanceof CurationError) return Response.json({ error: e.message }, { status: 409 });
    throw e;
  }
}

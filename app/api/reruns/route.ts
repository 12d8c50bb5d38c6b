import { z } from "zod";
import { defaultLimits } from "@/lib/agent/loop";
import { providerIds } from "@/lib/agent/providers";
import { RerunError, RerunLimitError, startRerun } from "@/lib/agent/reruns";
import { getSql, storeOpener } from "@/lib/db/store";
import { variants } from "@/lib/environment/directives";
import { invalidBody } from "@/lib/http/invalid";
import { clientOf } from "@/lib/auth/client";

const body = z.object({
  traceId: z.string().min(1),
  provider: z.enum(providerIds),
  model: z.string().min(1).max(200),
  variant: z.enum(variants),
  maxSteps: z.number().int().min(1).max(200).optional(),
  wallTimeMs: z.number().int().min(1000).max(3_600_000).optional(),
  maxOutputTokens: z.number().int().min(16).max(64_000).optional(),
});

/** Starts a rerun of one trace's question; the job's events stream at /api/reruns/<id>/events. */
export async function POST(request: Request) {
  const parsed = body.safeParse(await request.json().catch(() => null));
  if (!parsed.success) return invalidBody(parsed.error);
  const { traceId, provider, model, variant, ...limits } = parsed.data;
  await getSql(); // migrated before the job opens its own connection
  const d = defaultLimits();
  try {
    const client = clientOf(request.headers);
    const job = await startRerun(storeOpener(), {
      traceId,
      provider,
      model,
      variant,
      client,
      limits: {
        maxSteps: limits.maxSteps ?? d.maxSteps,
        wallTimeMs: limits.wallTimeMs ?? d.wallTimeMs,
        maxOutputTokens: limits.maxOutputTokens ?? d.maxOutputTokens,
      },
    });
    return Response.json({ jobId: job.id });
  } catch (e) {
    if (e instanceof RerunLimitError) return Response.json({ error: e.message }, { status: 429 });
    if (e instanceof RerunError) return Response.json({ error: e.message }, { status: 400 });
    throw e;
  }
}

import { z } from "zod";
import { controlSweep, setSweepBudget, startSweepWork, sweepStatus, SweepError } from "@/lib/agent/sweeps";
import { getSql, storeOpener } from "@/lib/db/store";
import { invalidBody } from "@/lib/http/invalid";

const actions = ["pause", "resume", "cancel"] as const;
const positive = z.number().positive().finite().optional();
/** A resume may raise the budget (the sweep page's form, as `metron sweep resume RUN --max-…`). */
const resumeBody = z.object({
  budget: z.object({ maxTokens: positive, maxCostUsd: positive, maxWallMs: positive }).strict().optional(),
});

/** Pause (what runs finishes, nothing new starts), resume (with a raised budget, if given), or cancel a sweep. */
export async function POST(request: Request, ctx: RouteContext<"/api/sweeps/[runId]/[action]">) {
  const { runId, action } = await ctx.params;
  if (!(actions as readonly string[]).includes(action))
    return Response.json({ error: `unknown action ${action}: ${actions.join(", ")}` }, { status: 404 });
  const sql = await getSql();
  try {
    if (action === "resume") {
      const text = await request.text();
      const parsed = resumeBody.safeParse(text.trim() ? JSON.parse(text) : {});
      if (!parsed.success) return invalidBody(parsed.error);
      const raised = Object.fromEntries(Object.entries(parsed.data.budget ?? {}).filter(([, v]) => v !== undefined));
      if (Object.keys(raised).length) {
        const status = await sweepStatus(sql, runId);
        if (!status) return Response.json({ error: `run ${runId} is not a sweep` }, { status: 404 });
        await setSweepBudget(sql, runId, { ...status.budget, ...raised });
      }
    }
    const result = await controlSweep(sql, runId, action as (typeof actions)[number]);
    if (action === "resume") startSweepWork(storeOpener());
    return Response.json(result);
  } catch (e) {
    if (e instanceof SweepError) return Response.json({ error: e.message }, { status: 409 });
    if (e instanceof SyntaxError)
      return Response.json({ error: `the body is not JSON: ${e.message}` }, { status: 400 });
    throw e;
  }
}

import { controlSweep, startSweepWork, SweepError } from "@/lib/agent/sweeps";
import { getSql, storeOpener } from "@/lib/db/store";

const actions = ["pause", "resume", "cancel"] as const;

/** Pause (what runs finishes, nothing new starts), resume, or cancel a sweep. */
export async function POST(_request: Request, ctx: RouteContext<"/api/sweeps/[runId]/[action]">) {
  const { runId, action } = await ctx.params;
  if (!(actions as readonly string[]).includes(action))
    return Response.json({ error: `unknown action ${action}: ${actions.join(", ")}` }, { status: 404 });
  try {
    const result = await controlSweep(await getSql(), runId, action as (typeof actions)[number]);
    if (action === "resume") startSweepWork(storeOpener());
    return Response.json(result);
  } catch (e) {
    if (e instanceof SweepError) return Response.json({ error: e.message }, { status: 409 });
    throw e;
  }
}

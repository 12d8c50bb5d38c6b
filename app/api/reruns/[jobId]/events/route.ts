import { getRecordedRerun, getRerun, type RerunEvent } from "@/lib/agent/reruns";
import { getSql } from "@/lib/db/store";
import { sseResponse } from "@/lib/http/sse";

/** Server-sent events of a rerun, replayed from `Last-Event-ID` (or ?from=) so a reconnect loses nothing. */
export async function GET(request: Request, ctx: RouteContext<"/api/reruns/[jobId]/events">) {
  const { jobId } = await ctx.params;
  const job = getRerun(jobId);
  if (!job) {
    const recorded = await getRecordedRerun(await getSql(), jobId);
    if (!recorded) return Response.json({ error: `no rerun ${jobId}` }, { status: 404 });
    // Finished and released, or lost in a restart: the record says how it ended.
    return Response.json(
      { id: jobId, state: recorded.state, error: recorded.error, resultTraceId: recorded.resultTraceId },
      { status: 410 },
    );
  }
  const last = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("from");
  const from = last === null ? 0 : Number(last) + 1;
  const ended = (e: RerunEvent) => e.type === "done" || e.type === "failed";
  return sseResponse(request, ({ send, close }) => {
    for (const e of job.events.slice(from)) {
      send(e, e.id);
      if (ended(e)) return close();
    }
    const listener = (e: RerunEvent) => {
      send(e, e.id);
      if (ended(e)) close();
    };
    job.listeners.add(listener);
    return () => job.listeners.delete(listener);
  });
}

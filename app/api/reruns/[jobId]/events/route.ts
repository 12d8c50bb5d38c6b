import { getRecordedRerun, getRerun, type RerunEvent } from "@/lib/agent/reruns";
import { getDb } from "@/lib/db/client";

/** Server-sent events of a rerun, replayed from `Last-Event-ID` (or ?from=) so a reconnect loses nothing. */
export async function GET(request: Request, ctx: RouteContext<"/api/reruns/[jobId]/events">) {
  const { jobId } = await ctx.params;
  const job = getRerun(jobId);
  if (!job) {
    const recorded = getRecordedRerun(getDb().$client, jobId);
    if (!recorded) return Response.json({ error: `no rerun ${jobId}` }, { status: 404 });
    // Finished and released, or lost in a restart: the record says how it ended.
    return Response.json(
      { id: jobId, state: recorded.state, error: recorded.error, resultTraceId: recorded.resultTraceId },
      { status: 410 },
    );
  }
  const last = request.headers.get("last-event-id") ?? new URL(request.url).searchParams.get("from");
  const from = last === null ? 0 : Number(last) + 1;
  const encoder = new TextEncoder();
  let listener: ((e: RerunEvent) => void) | undefined;
  const stream = new ReadableStream({
    start(controller) {
      const send = (e: RerunEvent) => {
        controller.enqueue(encoder.encode(`id: ${e.id}\ndata: ${JSON.stringify(e)}\n\n`));
        if (e.type === "done" || e.type === "failed") {
          if (listener) job.listeners.delete(listener);
          controller.close();
        }
      };
      for (const e of job.events.slice(from)) {
        send(e);
        if (e.type === "done" || e.type === "failed") return;
      }
      listener = send;
      job.listeners.add(listener);
      request.signal.addEventListener("abort", () => listener && job.listeners.delete(listener));
    },
    cancel() {
      if (listener) job.listeners.delete(listener);
    },
  });
  return new Response(stream, {
    headers: { "Content-Type": "text/event-stream", "Cache-Control": "no-cache, no-transform" },
  });
}

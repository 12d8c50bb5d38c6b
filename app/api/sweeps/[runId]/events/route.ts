import { getSql } from "@/lib/db/store";
import { sweepStatus } from "@/lib/agent/sweeps";
import { positiveNumber } from "@/lib/config/env";
import { sseResponse } from "@/lib/http/sse";

/**
 * A sweep's progress as server-sent events: a snapshot from the store when it changes (checked every
 * METRON_SWEEP_EVENTS_MS, 500 ms: the sweep may run in another process), until the sweep ends.
 */
export async function GET(request: Request, ctx: RouteContext<"/api/sweeps/[runId]/events">) {
  const { runId } = await ctx.params;
  const sql = await getSql();
  if (!(await sweepStatus(sql, runId))) return Response.json({ error: `run ${runId} is not a sweep` }, { status: 404 });
  const every = positiveNumber("METRON_SWEEP_EVENTS_MS", 500);
  return sseResponse(request, ({ send, close }) => {
    let last = "";
    let pushing = false;
    const push = async () => {
      if (pushing) return; // the previous snapshot is still being read
      pushing = true;
      try {
        await pushOnce();
      } finally {
        pushing = false;
      }
    };
    const pushOnce = async () => {
      const status = await sweepStatus(sql, runId);
      if (!status) return close();
      // Elapsed time and ETA change every tick: a snapshot is sent when anything else changed.
      const key = JSON.stringify({ ...status, elapsedMs: 0, etaMs: 0 });
      if (key !== last) {
        last = key;
        send(status);
      }
      if (status.state !== "running" && status.jobs.running === 0) close();
    };
    void push();
    const timer = setInterval(() => void push(), every);
    return () => clearInterval(timer);
  });
}

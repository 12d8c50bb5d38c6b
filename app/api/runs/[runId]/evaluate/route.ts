import { z } from "zod";
import { getSql, storeOpener } from "@/lib/db/store";
import { viewsInBackground } from "@/lib/views/ahead";
import { getRun } from "@/lib/db/queries/runs";
import { compareModes, numericModes } from "@/lib/eval/compare";
import { evaluateRun } from "@/lib/eval/evaluate-run";
import { sseResponse } from "@/lib/http/sse";
import { invalidBody } from "@/lib/http/invalid";

const body = z.object({ mode: z.enum(compareModes).optional(), numeric: z.enum(numericModes).default("exact") });
const running = ((globalThis as unknown as { metronEvaluating?: Set<string> }).metronEvaluating ??= new Set());

/** Re-evaluates a run's execution accuracy; progress and the final counts stream as server-sent events. */
export async function POST(request: Request, ctx: RouteContext<"/api/runs/[runId]/evaluate">) {
  const { runId } = await ctx.params;
  const parsed = body.safeParse(await request.json().catch(() => ({})));
  if (!parsed.success) return invalidBody(parsed.error);
  const sql = await getSql();
  if (!(await getRun(sql, runId))) return Response.json({ error: `no run ${runId}` }, { status: 404 });
  if (running.has(runId)) return Response.json({ error: "this run is being evaluated already" }, { status: 409 });
  running.add(runId);
  return sseResponse(request, ({ send, close }) => {
    let last = 0;
    void evaluateRun(sql, runId, {
      mode: parsed.data.mode,
      numeric: parsed.data.numeric,
      onProgress: (done, total) => {
        if (done === total || Date.now() - last > 150) {
          last = Date.now();
          send({ done, total });
        }
      },
    })
      .then(({ counts }) => send({ counts }))
      .catch((e: Error) => send({ error: e.message }))
      .finally(() => {
        running.delete(runId);
        close();
        viewsInBackground(storeOpener()); // the run's pages' views for its new version
      });
  });
}

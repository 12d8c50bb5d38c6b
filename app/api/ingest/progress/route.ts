import { readProgress } from "@/lib/ingest/progress-registry";

const TICK_MS = 200;
const MAX_MS = 30 * 60_000;

/** Server-sent events: the lines and traces processed so far for one upload token. */
export async function GET(request: Request) {
  const token = new URL(request.url).searchParams.get("token");
  if (!token) return Response.json({ error: "token is required" }, { status: 400 });
  const encoder = new TextEncoder();
  const started = Date.now();
  const stream = new ReadableStream({
    start(controller) {
      let last = "";
      const timer = setInterval(() => {
        const p = readProgress(token);
        const payload = JSON.stringify(p ?? { waiting: true });
        if (payload !== last) controller.enqueue(encoder.encode(`data: ${payload}\n\n`));
        last = payload;
        if (p?.done || Date.now() - started > MAX_MS || request.signal.aborted) {
          clearInterval(timer);
          controller.close();
        }
      }, TICK_MS);
      request.signal.addEventListener("abort", () => clearInterval(timer));
    },
  });
  return new Response(stream, {
    headers: {
      "Content-Type": "text/event-stream",
      "Cache-Control": "no-cache, no-transform",
      Connection: "keep-alive",
    },
  });
}

import { sseResponse } from "@/lib/http/sse";
import { readProgress, subscribeProgress } from "@/lib/ingest/progress-registry";

/** Server-sent events: the bytes, lines and traces processed so far for one upload token, pushed as reported. */
export async function GET(request: Request) {
  const token = new URL(request.url).searchParams.get("token");
  if (!token) return Response.json({ error: "token is required" }, { status: 400 });
  return sseResponse(request, ({ send, close }) => {
    const current = readProgress(token);
    send(current ?? { waiting: true });
    if (current?.done) return close();
    return subscribeProgress(token, (p) => {
      send(p);
      if (p.done) close();
    });
  });
}

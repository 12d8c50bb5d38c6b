/**
 * Server-sent event streams for route handlers: events are pushed as they happen (no polling), and a comment line
 * goes out every `METRON_SSE_HEARTBEAT_MS` (15 s) so proxies do not drop an idle stream. The stream ends when the
 * producer closes it or the client goes away; `start` returns the cleanup to run then.
 */
import { positiveNumber } from "@/lib/config/env";

export interface SseChannel {
  send: (data: unknown, id?: number) => void;
  close: () => void;
}

export function sseResponse(request: Request, start: (channel: SseChannel) => (() => void) | void): Response {
  const encoder = new TextEncoder();
  const heartbeatMs = positiveNumber("METRON_SSE_HEARTBEAT_MS", 15_000);
  let cleanup: (() => void) | void;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const close = () => {
        if (closed) return;
        closed = true;
        clearInterval(timer);
        cleanup?.();
        try {
          controller.close();
        } catch {
          /* already closed by the client */
        }
      };
      const channel: SseChannel = {
        send: (data, id) => {
          if (!closed)
            controller.enqueue(
              encoder.encode(`${id !== undefined ? `id: ${id}\n` : ""}data: ${JSON.stringify(data)}\n\n`),
            );
        },
        close,
      };
      timer = setInterval(() => {
        if (!closed) controller.enqueue(encoder.encode(": heartbeat\n\n"));
      }, heartbeatMs);
      request.signal.addEventListener("abort", close);
      cleanup = start(channel);
      if (closed) cleanup?.();
    },
    cancel() {
      closed = true;
      clearInterval(timer);
      cleanup?.();
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

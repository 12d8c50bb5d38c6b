import { describe, expect, it } from "vitest";
import { sseResponse } from "./sse";

describe("sseResponse", () => {
  it("pushes events, keeps an idle stream alive with heartbeats, and cleans up when the producer closes", async () => {
    process.env.METRON_SSE_HEARTBEAT_MS = "30";
    let cleaned = false;
    let channel: { send: (d: unknown, id?: number) => void; close: () => void } | undefined;
    const response = sseResponse(new Request("http://x/"), (c) => {
      channel = c;
      c.send({ hello: 1 }, 7);
      return () => {
        cleaned = true;
      };
    });
    setTimeout(() => {
      channel!.send({ bye: 2 });
      channel!.close();
    }, 120);
    const text = await response.text();
    delete process.env.METRON_SSE_HEARTBEAT_MS;
    expect(text.startsWith('id: 7\ndata: {"hello":1}\n\n')).toBe(true);
    expect(text).toContain(": heartbeat\n\n");
    expect(text.trimEnd().endsWith('data: {"bye":2}')).toBe(true);
    expect(cleaned).toBe(true);
  });
});

/**
 * A scripted fake OpenAI-compatible server on 127.0.0.1 for tests of the provider path: each chat completion
 * request takes the next scripted reply — tool calls, a text answer, an HTTP error, or a slow reply.
 */
import http from "node:http";

/**
 * Token usage of a reply; `cached` is sent as OpenAI does, `prompt_tokens_details.cached_tokens`. `null`: the reply
 * has no `usage` at all (a provider that reports none).
 */
export type ScriptedUsage = { prompt: number; completion: number; cached?: number } | null;

export type ScriptedReply =
  | { toolCalls: { name: string; args: Record<string, unknown> }[]; usage?: ScriptedUsage }
  | { text: string; usage?: ScriptedUsage }
  | { error: number; message: string; headers?: Record<string, string> }
  | { delayMs: number; then: ScriptedReply };

export interface FakeServer {
  url: string;
  requests: { headers: http.IncomingHttpHeaders; body: { model: string; messages: unknown[]; tools?: unknown[] } }[];
  close: () => Promise<void>;
}

/** A reply chosen from the request (its messages, say), for concurrent callers whose order is not known. */
export type ReplyFn = (body: { model: string; messages: unknown[] }) => ScriptedReply;

export async function startFakeOpenAI(script: ScriptedReply[] | ReplyFn): Promise<FakeServer> {
  const requests: FakeServer["requests"] = [];
  let next = 0;
  const reply = (res: http.ServerResponse, r: ScriptedReply, model: string): void => {
    if ("delayMs" in r) {
      const t = setTimeout(() => reply(res, r.then, model), r.delayMs);
      res.on("close", () => clearTimeout(t));
      return;
    }
    if ("error" in r) {
      res
        .writeHead(r.error, { "Content-Type": "application/json", ...r.headers })
        .end(JSON.stringify({ error: { message: r.message, type: "server_error" } }));
      return;
    }
    const usage = r.usage === undefined ? { prompt: 100, completion: 20 } : r.usage;
    const message =
      "toolCalls" in r
        ? {
            role: "assistant",
            content: null,
            tool_calls: r.toolCalls.map((c, i) => ({
              id: `call_${next}_${i}`,
              type: "function",
              function: { name: c.name, arguments: JSON.stringify(c.args) },
            })),
          }
        : { role: "assistant", content: r.text };
    res.writeHead(200, { "Content-Type": "application/json" }).end(
      JSON.stringify({
        id: `chatcmpl-${next}`,
        object: "chat.completion",
        created: 1_700_000_000,
        model,
        choices: [{ index: 0, message, finish_reason: "toolCalls" in r ? "tool_calls" : "stop" }],
        ...(usage
          ? {
              usage: {
                prompt_tokens: usage.prompt,
                completion_tokens: usage.completion,
                total_tokens: usage.prompt + usage.completion,
                ...(usage.cached !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cached } } : {}),
              },
            }
          : {}),
      }),
    );
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      if (req.url?.endsWith("/embeddings")) {
        // A deterministic embedding: letter frequencies of each input.
        const { input } = JSON.parse(body) as { input: string[] };
        const vec = (t: string) =>
          Array.from({ length: 26 }, (_, i) => [...t.toLowerCase()].filter((ch) => ch.charCodeAt(0) - 97 === i).length);
        res.writeHead(200, { "Content-Type": "application/json" }).end(
          JSON.stringify({
            object: "list",
            data: input.map((t, i) => ({ object: "embedding", index: i, embedding: vec(t) })),
            model: "fake-embed",
            usage: { prompt_tokens: 1, total_tokens: 1 },
          }),
        );
        return;
      }
      if (!req.url?.endsWith("/chat/completions")) {
        res.writeHead(404).end();
        return;
      }
      const parsed = JSON.parse(body);
      requests.push({ headers: req.headers, body: parsed });
      const r = typeof script === "function" ? (next++, script(parsed)) : script[Math.min(next++, script.length - 1)];
      reply(res, r, parsed.model);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

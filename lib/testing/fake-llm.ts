/**
 * A scripted fake model server on 127.0.0.1 for real agent harnesses (the harness conformance suite): OpenAI Chat
 * Completions (`/chat/completions`), OpenAI Responses (`/responses`) and Anthropic Messages (`/messages`), each
 * streaming (server-sent events, as the providers send them) and not.
 *
 * Harnesses make requests of their own besides the agent loop (titles, summaries, quota probes), in an order that is
 * not the script's, so the next step is read off the conversation, not the request count: the step is the number of
 * tool results the request already carries. A request whose tools include none of the script's (a title request has
 * no tools) gets a short text. Tool names are resolved by suffix against the request's own tools, since each harness
 * namespaces MCP tools its own way (`mcp__metron__list_tables`, `metron_list_tables`, …).
 *
 * Every reply reports the same usage, so a trace's expected totals are `calls × usage`: OpenAI's convention (input
 * includes the cached part, `cached_tokens`) on the OpenAI routes, Anthropic's (`input_tokens` excludes the cache
 * read, `cache_read_input_tokens`) on Messages.
 */
import http from "node:http";

export type ScriptStep = { tool: string; args: Record<string, unknown> } | { text: string };
export type FakeUsage = { input: number; cached: number; output: number };
export type Api = "chat" | "responses" | "messages";

export interface FakeLlmRequest {
  api: Api;
  stream: boolean;
  model: string;
  /** The step this request was answered with, or null for a request outside the agent loop (no script tool). */
  step: number | null;
  body: Record<string, unknown>;
  headers: http.IncomingHttpHeaders;
}

export interface FakeLlm {
  /** The base URL ending in `/v1` (OpenAI clients); Anthropic clients take it without the `/v1`. */
  url: string;
  origin: string;
  requests: FakeLlmRequest[];
  /** The requests that were part of the agent loop (they carried the script's tools). */
  loopRequests: () => FakeLlmRequest[];
  close: () => Promise<void>;
}

const OTHER_TEXT = "SQL agent session";

type Offered = { name: string; namespace?: string };

/**
 * Every tool a request offers, wherever its API puts it (function tools, and the functions of a Responses
 * `namespace` tool, as Codex sends MCP servers' tools: a call of one names its namespace).
 */
function offeredTools(tools: unknown, namespace?: string): Offered[] {
  if (!Array.isArray(tools)) return [];
  return tools.flatMap((t: { type?: string; name?: unknown; function?: { name?: unknown }; tools?: unknown }) => {
    if (t?.type === "namespace" && typeof t.name === "string") return offeredTools(t.tools, t.name);
    const name = typeof t?.function?.name === "string" ? t.function.name : t?.name;
    return typeof name === "string" ? [{ name, ...(namespace ? { namespace } : {}) }] : [];
  });
}

/** The request's tool that plays the script's `tool`: the same name, or one ending in `_tool`, `.tool`, `/tool`. */
export function resolveTool(offered: Offered[], tool: string): Offered | undefined {
  return offered.find((o) => o.name === tool) ?? offered.find((o) => new RegExp(`[_./:-]${tool}$`).test(o.name));
}

/** How many tool results the conversation carries (the step the harness is at). */
function toolResultsIn(api: Api, body: Record<string, unknown>): number {
  if (api === "chat") return ((body.messages as { role?: string }[]) ?? []).filter((m) => m.role === "tool").length;
  if (api === "responses") {
    const input = body.input;
    if (!Array.isArray(input)) return 0;
    return input.filter((i: { type?: string }) => /_call_output$/.test(i?.type ?? "")).length;
  }
  let n = 0;
  for (const m of (body.messages as { role?: string; content?: unknown }[]) ?? [])
    if (m.role === "user" && Array.isArray(m.content))
      n += m.content.filter((b: { type?: string }) => b?.type === "tool_result").length;
  return n;
}

type Reply =
  | { kind: "tool"; name: string; namespace?: string; args: Record<string, unknown>; id: string }
  | { kind: "text"; text: string };

function sse(res: http.ServerResponse, events: { event?: string; data: unknown }[]) {
  res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache", Connection: "keep-alive" });
  for (const e of events)
    res.write(
      `${e.event ? `event: ${e.event}\n` : ""}data: ${typeof e.data === "string" ? e.data : JSON.stringify(e.data)}\n\n`,
    );
  res.end();
}

function json(res: http.ServerResponse, body: unknown) {
  res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify(body));
}

function chat(res: http.ServerResponse, r: Reply, model: string, u: FakeUsage, stream: boolean, n: number) {
  const usage = {
    prompt_tokens: u.input,
    completion_tokens: u.output,
    total_tokens: u.input + u.output,
    prompt_tokens_details: { cached_tokens: u.cached },
  };
  const call =
    r.kind === "tool"
      ? { id: r.id, type: "function", function: { name: r.name, arguments: JSON.stringify(r.args) } }
      : undefined;
  const finish = r.kind === "tool" ? "tool_calls" : "stop";
  const base = { id: `chatcmpl-${n}`, created: 1_700_000_000 + n, model };
  if (!stream) {
    const message = call
      ? { role: "assistant", content: null, tool_calls: [call] }
      : { role: "assistant", content: r.kind === "text" ? r.text : "" };
    return json(res, {
      ...base,
      object: "chat.completion",
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
  }
  const chunk = (delta: unknown, finish_reason: string | null = null) => ({
    data: { ...base, object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }] },
  });
  const events: { data: unknown }[] = [chunk({ role: "assistant", content: "" })];
  if (call) {
    const args = call.function.arguments;
    events.push(
      chunk({
        tool_calls: [
          { index: 0, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(0, Math.ceil(args.length / 2)) } }] }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: args.slice(Math.ceil(args.length / 2)) } }] }),
    );
  } else if (r.kind === "text") events.push(chunk({ content: r.text }));
  events.push(chunk({}, finish), { data: { ...base, object: "chat.completion.chunk", choices: [], usage } });
  sse(res, [...events, { data: "[DONE]" }]);
}

function responses(res: http.ServerResponse, r: Reply, model: string, u: FakeUsage, stream: boolean, n: number) {
  const usage = {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: u.cached },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.input + u.output,
  };
  const item =
    r.kind === "tool"
      ? {
          type: "function_call",
          id: `fc_${n}`,
          call_id: r.id,
          name: r.name,
          ...(r.namespace ? { namespace: r.namespace } : {}),
          arguments: JSON.stringify(r.args),
          status: "completed",
        }
      : {
          type: "message",
          id: `msg_${n}`,
          role: "assistant",
          status: "completed",
          content: [{ type: "output_text", text: r.kind === "text" ? r.text : "", annotations: [] }],
        };
  const response = (status: string, output: unknown[], withUsage: boolean) => ({
    id: `resp_${n}`,
    object: "response",
    created_at: 1_700_000_000 + n,
    status,
    model,
    output,
    parallel_tool_calls: true,
    tool_choice: "auto",
    tools: [],
    ...(withUsage ? { usage } : { usage: null }),
  });
  if (!stream) return json(res, response("completed", [item], true));
  let seq = 0;
  const ev = (type: string, data: Record<string, unknown>) => ({
    event: type,
    data: { type, sequence_number: seq++, ...data },
  });
  const events = [
    ev("response.created", { response: response("in_progress", [], false) }),
    ev("response.in_progress", { response: response("in_progress", [], false) }),
  ];
  if (item.type === "function_call") {
    const fc = item as { arguments: string; id: string };
    events.push(
      ev("response.output_item.added", { output_index: 0, item: { ...item, arguments: "", status: "in_progress" } }),
      ev("response.function_call_arguments.delta", { item_id: fc.id, output_index: 0, delta: fc.arguments }),
      ev("response.function_call_arguments.done", { item_id: fc.id, output_index: 0, arguments: fc.arguments }),
    );
  } else {
    const text = r.kind === "text" ? r.text : "";
    const part = { type: "output_text", text: "", annotations: [] };
    events.push(
      ev("response.output_item.added", { output_index: 0, item: { ...item, status: "in_progress", content: [] } }),
      ev("response.content_part.added", { item_id: item.id, output_index: 0, content_index: 0, part }),
      ev("response.output_text.delta", { item_id: item.id, output_index: 0, content_index: 0, delta: text }),
      ev("response.output_text.done", { item_id: item.id, output_index: 0, content_index: 0, text }),
      ev("response.content_part.done", {
        item_id: item.id,
        output_index: 0,
        content_index: 0,
        part: { ...part, text },
      }),
    );
  }
  events.push(
    ev("response.output_item.done", { output_index: 0, item }),
    ev("response.completed", { response: response("completed", [item], true) }),
  );
  sse(res, events);
}

function messages(res: http.ServerResponse, r: Reply, model: string, u: FakeUsage, stream: boolean, n: number) {
  const usage = {
    input_tokens: u.input - u.cached,
    cache_read_input_tokens: u.cached,
    cache_creation_input_tokens: 0,
    output_tokens: u.output,
  };
  const block =
    r.kind === "tool"
      ? { type: "tool_use", id: r.id, name: r.name, input: r.args }
      : { type: "text", text: r.kind === "text" ? r.text : "" };
  const stop = r.kind === "tool" ? "tool_use" : "end_turn";
  const message = { id: `msg_${n}`, type: "message", role: "assistant", model, stop_sequence: null };
  if (!stream) return json(res, { ...message, content: [block], stop_reason: stop, usage });
  const ev = (type: string, data: Record<string, unknown>) => ({ event: type, data: { type, ...data } });
  const events = [
    ev("message_start", {
      message: { ...message, content: [], stop_reason: null, usage: { ...usage, output_tokens: 1 } },
    }),
  ];
  if (block.type === "tool_use") {
    const input = JSON.stringify(r.kind === "tool" ? r.args : {});
    events.push(
      ev("content_block_start", { index: 0, content_block: { ...block, input: {} } }),
      ev("content_block_delta", { index: 0, delta: { type: "input_json_delta", partial_json: input } }),
    );
  } else
    events.push(
      ev("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
      ev("content_block_delta", { index: 0, delta: { type: "text_delta", text: (block as { text: string }).text } }),
    );
  events.push(
    ev("content_block_stop", { index: 0 }),
    ev("message_delta", { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: u.output } }),
    ev("message_stop", {}),
  );
  sse(res, events);
}

export async function startFakeLlm(script: ScriptStep[], usage: FakeUsage): Promise<FakeLlm> {
  const requests: FakeLlmRequest[] = [];
  const scriptTools = new Set(script.flatMap((s) => ("tool" in s ? [s.tool] : [])));
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const url = req.url ?? "";
      if (req.method === "GET" && /\/models(\?|$)/.test(url))
        return json(res, {
          object: "list",
          data: [{ id: "fake-sql", object: "model", created: 0, owned_by: "metron" }],
        });
      const api: Api | undefined = /\/chat\/completions(\?|$)/.test(url)
        ? "chat"
        : /\/responses(\?|$)/.test(url)
          ? "responses"
          : /\/messages(\?|$)/.test(url)
            ? "messages"
            : undefined;
      if (/\/messages\/count_tokens/.test(url)) return json(res, { input_tokens: usage.input });
      if (req.method !== "POST" || !api) {
        res
          .writeHead(404, { "Content-Type": "application/json" })
          .end(JSON.stringify({ error: { message: `no route ${url}` } }));
        return;
      }
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}");
      } catch {
        res.writeHead(400).end();
        return;
      }
      const offered = offeredTools(body.tools);
      const inLoop = [...scriptTools].some((t) => resolveTool(offered, t));
      const n = requests.length;
      const stepIndex = inLoop ? Math.min(toolResultsIn(api, body), script.length - 1) : null;
      const step = stepIndex === null ? { text: OTHER_TEXT } : script[stepIndex];
      let reply: Reply;
      if ("tool" in step) {
        const tool = resolveTool(offered, step.tool);
        reply = tool
          ? { kind: "tool", ...tool, args: step.args, id: api === "messages" ? `toolu_fake${n}` : `call_fake${n}` }
          : { kind: "text", text: `(the fake model found no tool for ${step.tool})` };
      } else reply = { kind: "text", text: step.text };
      const stream = body.stream === true;
      const model = typeof body.model === "string" ? body.model : "fake-sql";
      requests.push({ api, stream, model, step: stepIndex, body, headers: req.headers });
      if (api === "chat") chat(res, reply, model, usage, stream, n);
      else if (api === "responses") responses(res, reply, model, usage, stream, n);
      else messages(res, reply, model, usage, stream, n);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as { port: number };
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/v1`,
    origin,
    requests,
    loopRequests: () => requests.filter((r) => r.step !== null),
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

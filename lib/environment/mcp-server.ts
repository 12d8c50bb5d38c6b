/**
 * The environment as an MCP server (one question per server): the five tools over stdio, or streamable HTTP on
 * 127.0.0.1 with a session (an environment and a trace) per client. Each call is appended to the trace file as a
 * canonical event line as it happens, so a session killed midway still leaves a trace that `metron ingest` and the
 * upload page accept; a session that makes no call leaves none.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import http from "node:http";
import { toolDescriptions, toolInputs, type SqlEnvironment, type ToolName } from "./tools";

/** What clients (Claude Code, Codex) read to decide on approval: every tool but the submission only reads. */
const annotations = (name: ToolName) => ({
  readOnlyHint: name !== "submit_final_query",
  destructiveHint: false,
  idempotentHint: name !== "submit_final_query",
  openWorldHint: false,
});

/**
 * One MCP session over one environment. Its trace goes to `traceOut` as event lines, and only once a tool is called:
 * a client that connects and lists the tools (`opencode mcp list`, Codex at start) leaves no empty trace.
 */
export function createMcpServer(env: SqlEnvironment, traceOut?: string): McpServer {
  const server = new McpServer({ name: "metron-sqlite", version: "1.0.0" });
  const traceId = randomUUID();
  let started = false;
  const start = () => {
    if (!traceOut || started) return;
    started = true;
    // The header of an event-line trace: everything but the steps and what only the end knows.
    const header: Record<string, unknown> = { ...env.trace() };
    for (const key of ["steps", "final_sql", "outcome"]) delete header[key];
    appendFileSync(traceOut, JSON.stringify({ kind: "trace", trace_id: traceId, ...header }) + "\n");
  };
  for (const name of Object.keys(toolInputs) as ToolName[]) {
    server.registerTool(
      name,
      { description: toolDescriptions[name], inputSchema: toolInputs[name].shape, annotations: annotations(name) },
      async (args: unknown) => {
        start();
        const text = await env.call(name, args);
        const step = env.steps[env.steps.length - 1];
        if (traceOut)
          appendFileSync(
            traceOut,
            JSON.stringify({ kind: "step", trace_id: traceId, seq: env.steps.length - 1, ...step }) + "\n",
          );
        return { content: [{ type: "text" as const, text }], ...(step.error ? { isError: true } : {}) };
      },
    );
  }
  return server;
}

export async function serveStdio(server: McpServer): Promise<void> {
  await server.connect(new StdioServerTransport());
}

/** A new session: its own server over its own environment (closed with the session). */
export type SessionFactory = () => Promise<{ server: McpServer; close: () => Promise<void> }>;

/**
 * Streamable HTTP at http://127.0.0.1:PORT/mcp, any number of sessions at once: each `initialize` opens a session of
 * its own (an environment and a trace of its own, from `newSession`), later requests name it by `Mcp-Session-Id`,
 * and a DELETE or the server's end closes it. Resolves once listening, with a function to stop.
 */
export async function serveHttp(
  newSession: SessionFactory,
  port: number,
): Promise<{ url: string; close: () => Promise<void>; sessions: () => number }> {
  const sessions = new Map<string, { transport: StreamableHTTPServerTransport; close: () => Promise<void> }>();
  let allowed = new Set<string>();
  const refuse = (res: http.ServerResponse, status: number, message: string) =>
    res
      .writeHead(status, { "Content-Type": "application/json" })
      .end(JSON.stringify({ jsonrpc: "2.0", error: { code: -32000, message }, id: null }));
  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const id = req.headers["mcp-session-id"];
    const known = typeof id === "string" ? sessions.get(id) : undefined;
    if (known) return known.transport.handleRequest(req, res);
    if (typeof id === "string") return refuse(res, 404, `no session ${id} (it ended): initialize a new one`);
    if (req.method !== "POST") return refuse(res, 400, "no Mcp-Session-Id: initialize a session first");
    let body: unknown;
    try {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return refuse(res, 400, "the body is not JSON");
    }
    if (!(Array.isArray(body) ? body : [body]).some((m) => isInitializeRequest(m)))
      return refuse(res, 400, "no Mcp-Session-Id: initialize a session first");
    const session = await newSession();
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (sid) => void sessions.set(sid, { transport, close: session.close }),
    });
    transport.onclose = () => {
      const sid = transport.sessionId;
      if (sid && sessions.delete(sid)) void session.close();
    };
    await session.server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  const httpServer = http.createServer((req, res) => {
    // DNS rebinding: a page on another origin that resolves to 127.0.0.1 sends its own Host and Origin; refuse both.
    const origin = req.headers.origin;
    if (
      !allowed.has(req.headers.host ?? "") ||
      (origin !== undefined && !allowed.has(origin.replace(/^https?:\/\//, "")))
    ) {
      res
        .writeHead(403, { "Content-Type": "text/plain" })
        .end("refused: Host and Origin must be this server's own (127.0.0.1 or localhost)");
      return;
    }
    if (!req.url?.startsWith("/mcp")) {
      res.writeHead(404).end("MCP is served at /mcp");
      return;
    }
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) refuse(res, 500, (e as Error).message);
    });
  });
  await new Promise<void>((resolve) => httpServer.listen(port, "127.0.0.1", resolve));
  const address = httpServer.address() as { port: number };
  allowed = new Set([`127.0.0.1:${address.port}`, `localhost:${address.port}`]);
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    sessions: () => sessions.size,
    close: async () => {
      for (const s of [...sessions.values()]) await s.transport.close();
      await new Promise<void>((r) => httpServer.close(() => r()));
    },
  };
}

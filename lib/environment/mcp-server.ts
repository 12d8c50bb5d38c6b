/**
 * The environment as an MCP server (one question per server): the five tools over stdio, or streamable HTTP on
 * 127.0.0.1. Each call is appended to the trace file as a canonical event line as it happens, so a session
 * killed midway still leaves a trace that `metron ingest` and the upload page accept.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import http from "node:http";
import { toolDescriptions, toolInputs, type SqlEnvironment, type ToolName } from "./tools";

export function createMcpServer(env: SqlEnvironment, traceOut?: string): McpServer {
  const server = new McpServer({ name: "metron-sqlite", version: "1.0.0" });
  const traceId = randomUUID();
  if (traceOut) {
    // The header of an event-line trace: everything but the steps and what only the end knows.
    const header: Record<string, unknown> = { ...env.trace() };
    for (const key of ["steps", "final_sql", "outcome"]) delete header[key];
    appendFileSync(traceOut, JSON.stringify({ kind: "trace", trace_id: traceId, ...header }) + "\n");
  }
  for (const name of Object.keys(toolInputs) as ToolName[]) {
    server.registerTool(
      name,
      { description: toolDescriptions[name], inputSchema: toolInputs[name].shape },
      async (args: unknown) => {
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

/** Streamable HTTP at http://127.0.0.1:PORT/mcp; resolves once listening, with a function to stop. */
export async function serveHttp(server: McpServer, port: number): Promise<{ url: string; close: () => Promise<void> }> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID() });
  await server.connect(transport);
  let allowed = new Set<string>();
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
    void transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => httpServer.listen(port, "127.0.0.1", resolve));
  const address = httpServer.address() as { port: number };
  allowed = new Set([`127.0.0.1:${address.port}`, `localhost:${address.port}`]);
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    close: () =>
      new Promise((r) => {
        void transport.close();
        httpServer.close(() => r());
      }),
  };
}

// A Mastra agent as its users write one (run by harnesses/mastra.test.ts under Node 22, which Mastra needs): an
// Agent on an AI SDK model (the fake model's Chat Completions), Metron's MCP server as its tools through
// @mastra/mcp, and Mastra's observability exporting OTLP/protobuf through @mastra/otel-exporter (the run's
// metron.* identity as resource attributes). Each session of the config (a question and its `metron mcp` command) is
// one `generate` with an MCP client of its own.
import { createOpenAI } from "@ai-sdk/openai";
import { Agent } from "@mastra/core/agent";
import { Mastra } from "@mastra/core/mastra";
import { MCPClient } from "@mastra/mcp";
import { Observability } from "@mastra/observability";
import { OtelExporter } from "@mastra/otel-exporter";

const config = JSON.parse(process.argv[2]);
const observability = new Observability({
  configs: {
    otel: {
      serviceName: config.serviceName,
      exporters: [
        new OtelExporter({
          provider: { custom: { endpoint: config.endpoint, protocol: "http/protobuf" } },
          resourceAttributes: config.resource,
        }),
      ],
    },
  },
});
const agent = new Agent({
  id: "sql-agent",
  name: "sql-agent",
  instructions: "Answer with one SQLite query, submitted with submit_final_query.",
  model: createOpenAI({ baseURL: config.llm, apiKey: "sk-fake" }).chat("fake-sql"),
});
const mastra = new Mastra({ agents: { sqlAgent: agent }, observability });
// Each question has its own environment (its own `metron mcp`): its tools are given per call, as toolsets.
for (const [i, session] of config.sessions.entries()) {
  const mcp = new MCPClient({
    id: `metron-${i}`,
    servers: { metron: { command: session.command, args: session.args, env: session.env } },
  });
  const result = await mastra
    .getAgent("sqlAgent")
    .generate(session.question, { toolsets: await mcp.listToolsets(), maxSteps: 12 });
  console.log(JSON.stringify({ question: session.question, text: result.text }));
  await mcp.disconnect();
}
await mastra.shutdown?.();

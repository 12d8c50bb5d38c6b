/**
 * OpenLLMetry (`@traceloop/node-server-sdk`, pinned), as its users set it up: `traceloop.initialize` with Metron as
 * its `baseUrl` (it exports OTLP/protobuf to `<baseUrl>/v1/traces`), its OpenAI and MCP instrumentations, and a
 * hand-written agent loop (the OpenAI SDK's Chat Completions against the fake model, the MCP SDK's stdio client on
 * `metron mcp`) inside a `withWorkflow` whose association properties carry the run's `metron.*` identity.
 * `traceloop.initialize` is once per process: each test file of the suite runs one set-up (batched or not).
 */
import * as traceloop from "@traceloop/node-server-sdk";
import * as mcpClientModule from "@modelcontextprotocol/sdk/client/index.js";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import OpenAI from "openai";
import type { FakeLlm } from "@/lib/testing/fake-llm";
import { metronMcp, type HarnessStore } from "../common";

const QUESTION = "Zeige den Stadionnamen und die Anzahl der Konzerte in jedem Stadion.";

export function initializeOpenLLMetry(metronUrl: string, disableBatch: boolean) {
  traceloop.initialize({
    appName: "openllmetry-agent",
    baseUrl: metronUrl,
    apiKey: "metron-no-token",
    disableBatch,
    silenceInitializationMessage: true,
    traceloopSyncEnabled: false,
    instrumentModules: { openAI: OpenAI, mcp: mcpClientModule as never },
  });
}

/** One agent session: the model asks for tools, the MCP client calls them, until the model answers in text. */
export async function openLLMetrySession(store: HarnessStore, fake: FakeLlm, run: string) {
  const [command, ...args] = metronMcp({ variant: "oracle" });
  const mcp = new Client({ name: "openllmetry-agent", version: "1.0.0" });
  await mcp.connect(
    new StdioClientTransport({
      command,
      args,
      env: { PATH: process.env.PATH ?? "", DATABASE_PATH: store.env.DATABASE_PATH },
      stderr: "ignore",
    }),
  );
  const openai = new OpenAI({ apiKey: "sk-fake", baseURL: fake.url });
  try {
    await traceloop.withWorkflow(
      {
        name: "sql-agent",
        associationProperties: {
          "metron.run.name": run,
          "metron.run.system": "OpenLLMetry",
          "metron.run.benchmark": "spider-de",
        },
      },
      async () => {
        const { tools } = await mcp.listTools();
        const messages: OpenAI.Chat.ChatCompletionMessageParam[] = [
          { role: "system", content: "Answer with one SQLite query, submitted with submit_final_query." },
          { role: "user", content: QUESTION },
        ];
        for (let turn = 0; turn < 12; turn++) {
          const reply = await openai.chat.completions.create({
            model: "fake-sql",
            messages,
            tools: tools.map((t) => ({
              type: "function" as const,
              function: { name: t.name, description: t.description, parameters: t.inputSchema },
            })),
          });
          const message = reply.choices[0].message;
          messages.push(message);
          if (!message.tool_calls?.length) return message.content;
          for (const call of message.tool_calls) {
            if (call.type !== "function") continue;
            const result = await mcp.callTool({
              name: call.function.name,
              arguments: JSON.parse(call.function.arguments),
            });
            const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join("\n");
            messages.push({ role: "tool", tool_call_id: call.id, content: text });
          }
        }
        throw new Error("the agent did not finish in 12 turns");
      },
    );
  } finally {
    await mcp.close();
  }
  await traceloop.forceFlush();
}

// A custom-command harness for tests (issue 31's contract): it reads METRON_PROMPT, starts METRON_MCP_COMMAND over
// stdio with the MCP SDK's client, lists and describes tables, submits the answer the profile's ANSWERS map gives for
// METRON_QUESTION_ID, and writes its own canonical trace (with token usage) into METRON_OUTPUT_DIR.
import { writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [command, ...args] = JSON.parse(process.env.METRON_MCP_COMMAND);
// A slow agent, for tests that kill the sweep's worker half-way.
if (process.env.DELAY_MS) await new Promise((r) => setTimeout(r, Number(process.env.DELAY_MS)));
const client = new Client({ name: "scripted-harness", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command, args, env: process.env, stderr: "inherit" }));
const steps = [];
const call = async (tool, a) => {
  const r = await client.callTool({ name: tool, arguments: a });
  const text = r.content?.[0]?.text ?? "";
  steps.push({ type: "tool_call", tool, args: a, result: text, ...(r.isError ? { error: text } : {}) });
  return text;
};
const tables = await call("list_tables", {});
const first = tables.match(/[\p{L}_][\p{L}\p{N}_]*/u)?.[0];
if (first) await call("describe_table", { table_name: first });
const answer = JSON.parse(process.env.ANSWERS ?? "{}")[process.env.METRON_QUESTION_ID] ?? "SELECT 1";
await call("submit_final_query", { query: answer });
await client.close();
writeFileSync(
  path.join(process.env.METRON_OUTPUT_DIR, "trace.jsonl"),
  JSON.stringify({
    question: { id: process.env.METRON_QUESTION_ID, text: process.env.METRON_PROMPT.split("Question: ")[1] ?? "" },
    steps: [{ type: "message", role: "user", content: process.env.METRON_PROMPT }, ...steps],
    final_sql: answer,
    usage: { input_tokens: 100, output_tokens: 10 },
    meta: { harness_wrote: true },
  }) + "\n",
);

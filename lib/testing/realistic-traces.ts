/**
 * Real-looking trace files for the ingest tests: Spider-de's first questions (../shared/data) as an agent could have
 * answered them, with the lines that go wrong in real files, and a snapshot of what an ingest stored.
 */
import { readFileSync } from "node:fs";
import type { Sql } from "@/lib/db/sql";
import { many, raw } from "@/lib/db/typed";
import { jsonl } from "./factories";
import { sharedData } from "./shared-data";

const spider = JSON.parse(readFileSync(sharedData("spider-de", "dev.json"), "utf8")) as {
  db_id: string;
  question: string;
  query: string;
}[];

/** Traces an agent could have written on Spider-de's first questions: probes, queries, fenced answers, failures. */
export function realisticLines(): string {
  const lines: unknown[] = [];
  spider.slice(0, 120).forEach((q, i) => {
    const table = /FROM\s+("?)([\p{L}\p{N}_]+)\1/iu.exec(q.query)?.[2] ?? "x";
    lines.push({
      run: {
        name: i % 3 ? "worker run" : "other run",
        system: "No Directives",
        model: "gpt-test",
        benchmark: "spider-de",
      },
      question: { id: String(i) },
      sample: i % 2,
      steps: [
        { type: "tool_call", tool: "list_tables", args: {}, result: `${table}\nother` },
        { type: "tool_call", tool: "describe_table", args: { table_name: table }, result: "id INTEGER" },
        { type: "tool_call", tool: "read_query", args: { query: `PRAGMA table_info(${table})` }, result: [] },
        { type: "tool_call", tool: "read_query", args: { query: q.query, max_rows: 5 }, result: "x".repeat(i * 40) },
        { type: "reasoning", content: `Schritt ${i}: ${q.question}` },
        ...(i % 7 === 0 ? [{ type: "error", error: "tool timed out", tool: "read_query" }] : []),
        { type: "tool_call", tool: "submit_final_query", args: { query: q.query }, result: "accepted" },
      ],
      final_sql: i % 5 === 0 ? "```sql\n" + q.query + "\n```" : q.query,
      outcome: { status: "submitted", correct: i % 4 !== 0 },
      usage: { input_tokens: 1000 + i, output_tokens: 50 },
    });
    if (i === 10) lines.push("{not json");
    if (i === 20) lines.push({ run: { name: "worker run" }, question: {}, steps: "none" });
    if (i === 30) lines.push(lines[0]); // a duplicate of the first trace
  });
  // A trace written as events, interleaved with whole lines.
  lines.splice(5, 0, {
    kind: "trace",
    trace_id: "ev1",
    run: { name: "events" },
    question: { id: "3" },
    final_sql: "SELECT 1",
  });
  lines.splice(9, 0, { kind: "step", trace_id: "ev1", seq: 0, type: "tool_call", tool: "list_tables", args: {} });
  lines.push({ kind: "step", trace_id: "ev1", seq: 1, type: "reasoning", content: "done" });
  return jsonl(...lines);
}

export function omit<T extends object>(value: T, ...keys: string[]): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !keys.includes(k))) as Partial<T>;
}

/** Everything an ingest stored, without the upload's own id, in one order on either engine. */
export async function storedRows(sql: Sql) {
  const all = async (text: string, leave: string[] = []) =>
    (await many<Record<string, unknown>>(sql, raw.raw(text)))
      .map((r) => omit(r, ...leave))
      .sort((a, b) => {
        const x = JSON.stringify(Object.entries(a).sort());
        const y = JSON.stringify(Object.entries(b).sort());
        return x < y ? -1 : x > y ? 1 : 0;
      });
  return {
    traces: await all("SELECT * FROM traces", ["upload_id", "created_at"]),
    steps: await all("SELECT * FROM steps"),
    blobs: await all("SELECT hash, length(content) AS n FROM blobs"),
    runs: await all("SELECT id, name, system, model, dataset_id FROM runs"),
    tools: await all("SELECT * FROM run_tool_counts"),
    errors: await all("SELECT line, message FROM upload_errors"),
  };
}

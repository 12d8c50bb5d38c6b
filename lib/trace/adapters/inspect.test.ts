import { createReadStream, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ingestAuto } from "@/lib/ingest/ingest-auto";
import { ENGINES, engineStore } from "@/lib/testing/engines";
import { adapt, detectFormat } from "./index";
import { evalZipToLog, isZip } from "./inspect-zip";
import { many, raw } from "@/lib/db/typed";

// inspect-sql.*: written by fixtures/make-inspect-fixtures.py from inspect_ai's log models (no public Inspect log of a
// SQL agent was at hand). inspect-real-deflate.eval: a real log from inspect_ai's own tests (MIT), deflate members.
const fixture = (name: string) => path.join(__dirname, "fixtures", name);

describe("Inspect AI logs", () => {
  it("reads a .json log: one trace per sample and epoch, tool events as steps with timing, usage, scores", () => {
    const text = readFileSync(fixture("inspect-sql.json"), "utf8");
    expect(detectFormat(text)).toBe("inspect");
    const { traces } = adapt(text, "inspect");
    expect(traces).toHaveLength(3);
    const [first, second, other] = traces;
    expect(first.question).toEqual({
      id: "1",
      text: "How many singers do we have?",
      db_id: "concert_singer",
      gold_sql: "SELECT count(*) FROM singer",
    });
    expect([first.sample, second.sample, other.sample]).toEqual([0, 1, 0]); // epochs 1 and 2 → samples 0 and 1
    expect(first.run).toEqual({ name: "spider_sql_agent (R7fXq2)", model: "openai/gpt-4o-mini" });
    const tools = first.steps.filter((s) => s.type === "tool_call");
    expect(tools.map((s) => s.tool)).toEqual(["list_tables", "describe_table", "describe_table"]);
    expect(tools[1]).toMatchObject({
      args: { table_name: "singer" },
      // attachment://a1b2 resolved from the sample's attachments
      result: "CREATE TABLE singer (Singer_ID int, Name text, Country text, Age int)",
      started_at: "2025-06-01T10:00:01.500+00:00",
    });
    expect(first.steps[0]).toEqual({ type: "message", role: "user", content: "How many singers do we have?" });
    expect(first.steps[1]).toMatchObject({ type: "reasoning", content: "I should look at the schema first." });
    // Inspect's input_tokens excludes cache reads: Metron counts them in.
    expect(first.steps[2].usage).toEqual({ input_tokens: 450, output_tokens: 20, cached_input_tokens: 50 });
    expect(first.usage).toEqual({ input_tokens: 2000, output_tokens: 90, cost_usd: 0.00042 });
    expect(first.outcome).toEqual({ correct: true, status: "submitted" });
    expect(first.final_sql).toBe("SELECT count(*) FROM singer");
    expect(first.duration_ms).toBe(4200);
    expect(second.outcome?.correct).toBe(false);
    expect(second.steps.find((s) => s.tool === "read_query")).toMatchObject({
      error: 'near "SELEC": syntax error',
      duration_ms: 250,
    });
    expect(other.final_sql).toBe("```sql\nSELECT name FROM stadium\n```");
  });

  it("reads an .eval whose members are Zstandard-compressed, to the same traces as the .json log", async () => {
    const bytes = readFileSync(fixture("inspect-sql.eval"));
    expect(isZip(bytes)).toBe(true);
    const log = await evalZipToLog(bytes);
    const fromEval = adapt(JSON.stringify(log), "inspect").traces;
    const fromJson = adapt(readFileSync(fixture("inspect-sql.json"), "utf8"), "inspect").traces;
    expect(fromEval).toEqual(fromJson);
  });

  it("reads a real .eval written by Inspect (deflate members): its sample, model call and score", async () => {
    const log = await evalZipToLog(readFileSync(fixture("inspect-real-deflate.eval")));
    const [t] = adapt(JSON.stringify(log), "inspect").traces;
    expect(t.run?.model).toBe("ollama/llama3.1");
    expect(t.outcome?.correct).toBe(false); // score "I"
    expect(t.steps.filter((s) => s.type === "message" && s.role === "assistant").map((s) => s.content)).toEqual(["No"]);
    expect(t.question.gold_sql).toBeUndefined(); // the target " Yes" is not SQL
    expect(t.meta.inspect).toMatchObject({ task: "popularity", target: " Yes" });
  });

  it.each(ENGINES)(
    "ingests an .eval through the upload path (%s store): traces stored, measured and their samples kept",
    async (engine) => {
      const store = await engineStore(engine);
      try {
        const report = await ingestAuto(store.sql, createReadStream(fixture("inspect-sql.eval")), {
          defaults: { system: "react" },
        });
        expect(report).toMatchObject({ format: "inspect", inserted: 3, error_count: 0 });
        const rows = await many(
          store.sql,
          raw<
            Record<string, unknown>
          >`SELECT question_id, sample, exploratory_calls, tool_call_count, recorded_correct FROM traces ORDER BY question_id, sample`,
        );
        expect(rows).toEqual([
          { question_id: "1", sample: 0, exploratory_calls: 2, tool_call_count: 3, recorded_correct: 1 },
          { question_id: "1", sample: 1, exploratory_calls: 0, tool_call_count: 2, recorded_correct: 0 },
          { question_id: "2", sample: 0, exploratory_calls: 1, tool_call_count: 1, recorded_correct: 1 },
        ]);
        // Sent again: nothing new.
        const again = await ingestAuto(store.sql, createReadStream(fixture("inspect-sql.eval")), {
          defaults: { system: "react" },
        });
        expect(again).toMatchObject({ inserted: 0, duplicates: 3 });
      } finally {
        await store.cleanup();
      }
    },
  );
});

import { createReadStream, readFileSync, statSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { sharedData } from "@/lib/testing/shared-data";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { ingestAuto } from "./ingest-auto";
import { many, raw } from "@/lib/db/typed";

const CLAUDE_FILE = "representative_messages.jsonl";

describe.each(ENGINES)("on the %s store", (engine) => {
  const store = useEngineStore(engine);
  const row = (runName: string) =>
    many(
      store.sql,
      raw<Record<string, unknown>>`SELECT t.* FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = ${runName}`,
    );

  describe("ingestAuto on real foreign files", () => {
    it("Spider-Agent: one trace, no final answer → no_submission, execution calls classified", async () => {
      const report = await ingestAuto(
        store.sql,
        createReadStream(sharedData("traces", "spider-agent", "spider-agent-tc_claude-3-7-sonnet_sf_bq024.json")),
        {
          fileName: "spider-agent.json",
          defaults: { name: "spider-agent", system: "Spider-Agent", model: "claude-3-7-sonnet" },
        },
      );
      expect(report).toMatchObject({ format: "openai-messages", inserted: 1, error_count: 0, links: { field: 1 } });
      const [t] = await row("spider-agent");
      expect(t).toMatchObject({
        question_id: "sf_bq024",
        status: "no_submission",
        final_sql: null,
        step_count: 52,
        tool_call_count: 25,
        calls_execution: 1,
        calls_other: 24,
      });
    });

    it("LiveSQLBench: three tasks, one passed", async () => {
      const report = await ingestAuto(
        store.sql,
        createReadStream(sharedData("traces", "livesqlbench-adk", "single_turn_samples.json")),
        { defaults: { name: "livesql", system: "ADK agent", model: "unknown" } },
      );
      expect(report).toMatchObject({ format: "livesqlbench", inserted: 3 });
      // The file's own lines and bytes (streamed element by element), not those of the three traces made of it.
      const file = sharedData("traces", "livesqlbench-adk", "single_turn_samples.json");
      const nonBlank = readFileSync(file, "utf8")
        .split("\n")
        .filter((l) => l.trim()).length;
      expect({ lines: report.lines, bytes: report.bytes }).toEqual({ lines: nonBlank, bytes: statSync(file).size });
      expect(nonBlank).toBe(1681);
      expect(report.runs[0].unknown).toEqual(["model", "dataset"]); // the report says what the file does not
      const traces = await row("livesql");
      expect(traces.map((t) => t.recorded_correct).sort()).toEqual([0, 0, 1]);
      expect(traces.every((t) => t.final_sql && t.calls_submission === 1 && (t.calls_execution! as number) > 0)).toBe(
        true,
      );
    });

    it("links a session to its question by the first user message", async () => {
      await importSpiderDe(store);
      const question = (
        JSON.parse(readFileSync(sharedData("spider-de", "dev.json"), "utf8")) as { question: string }[]
      )[22].question;
      const session = JSON.stringify([
        { role: "user", content: `Answer with SQL.\nQuestion: ${question}` },
        {
          role: "assistant",
          content: [{ type: "tool_use", id: "t1", name: "submit_final_query", input: { query: "SELECT 1" } }],
        },
      ]);
      const report = await ingestAuto(store.sql, chunksOf(session), {
        dataset: "spider-de",
        defaults: { name: "claude session", system: "s", model: "m" },
      });
      expect(report).toMatchObject({ format: "anthropic-messages", links: { exact: 1 } }); // the labelled question, exactly
      const [t] = await row("claude session");
      expect(t).toMatchObject({ question_id: "22", db_id: "concert_singer", gold_count: 2 });
      expect(JSON.parse(t.meta as string).question_link).toMatchObject({ method: "exact" });
    });

    it("a canonical file whose first line is broken still streams as canonical, the line reported by number", async () => {
      const good = (id: string) =>
        JSON.stringify({ run: { name: "broken-first", system: "s", model: "m" }, question: { id }, steps: [] });
      const report = await ingestAuto(store.sql, chunksOf(`{not json\n${good("a")}\n${good("b")}\n`, 7));
      expect(report).toMatchObject({
        format: "canonical",
        inserted: 2,
        errors: [{ line: 1, message: expect.stringMatching(/invalid JSON/) }],
      });
    });

    it("an invalid UTF-8 byte in a Claude Code session fails its line only", async () => {
      const lines = readFileSync(sharedData("traces", "claude-code", CLAUDE_FILE))
        .toString("utf8")
        .split("\n");
      const broken = Buffer.concat([
        Buffer.from(lines[0] + "\n"),
        Buffer.from([0x7b, 0xff, 0xfe, 0x7d, 0x0a]),
        Buffer.from(lines.slice(1).join("\n")),
      ]);
      const report = await ingestAuto(store.sql, chunksOf(broken), {
        defaults: { name: "cc-utf8", system: "s", model: "m" },
      });
      expect(report.format).toBe("claude-code");
      expect(report.inserted).toBeGreaterThan(0);
      // A file read whole counts its own bytes, not those of the traces made of it.
      expect(report.bytes).toBe(broken.length);
      expect(report.warnings).toContainEqual({ line: 2, message: "not valid UTF-8: the line was skipped" });
    });

    it("refuses a file of no known format, naming the formats", async () => {
      await expect(ingestAuto(store.sql, chunksOf("just some text\n"))).rejects.toThrow(
        /Supported formats: canonical, openai-messages/,
      );
    });
  });
});

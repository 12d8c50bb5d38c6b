/**
 * The runs' tool counts (`run_tool_counts`, the run page's tool table): a trace hands the writer its calls counted
 * per tool (`countToolCalls`), not a pair per call, and the counts a store keeps are what its steps hold, whichever
 * thread read the file and however many uploads a run came in.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openDb } from "@/lib/db/client";
import { asSql } from "@/lib/db/sql";
import { many, raw } from "@/lib/db/typed";
import { realisticLines } from "@/lib/testing/realistic-traces";
import { sharedData } from "@/lib/testing/shared-data";
import { ingestFile } from "./ingest-file";
import { countToolCalls, ToolCounter } from "./measure";

describe("countToolCalls and ToolCounter", () => {
  it("count a trace's calls per tool in the order of first calls, each tool with its first call's role", () => {
    const calls = countToolCalls([
      { tool: "list_tables", role: "schema_listing" },
      null,
      { tool: "read_query", role: "data_inspection" },
      { tool: "list_tables", role: "schema_listing" },
      { tool: "read_query", role: "submission" },
      null,
    ]);
    expect(calls).toEqual([
      ["list_tables", "schema_listing", 2],
      ["read_query", "data_inspection", 2],
    ]);
    expect(countToolCalls([null, null])).toEqual([]);
  });

  it("add traces' counts per run, keeping the role a tool had at its first call in the run", () => {
    const counter = new ToolCounter();
    counter.add("r1", [["read_query", "data_inspection", 3]]);
    counter.add("r2", [["read_query", "execution", 1]]);
    counter.add("r1", [
      ["read_query", "submission", 2],
      ["list_tables", "schema_listing", 1],
    ]);
    expect(counter.drain()).toEqual([
      ["r1", "read_query", "data_inspection", 5],
      ["r1", "list_tables", "schema_listing", 1],
      ["r2", "read_query", "execution", 1],
    ]);
    expect(counter.drain()).toEqual([]); // emptied
  });
});

describe("the runs' tool counts after an ingest", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "metron-tool-counts-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Per run and tool: the calls and roles the store's steps hold, against what `run_tool_counts` says. */
  const compare = async (file: string) => {
    const sql = asSql(openDb(file).$client);
    const fromSteps = await many<{ run_id: string; tool: string; role: string; calls: number }>(
      sql,
      raw`SELECT t.run_id, s.tool, min(s.tool_role) AS role, count(*) AS calls, count(DISTINCT s.tool_role) AS roles
          FROM steps s JOIN traces t ON t.id = s.trace_id WHERE s.tool_role IS NOT NULL
          GROUP BY t.run_id, s.tool ORDER BY t.run_id, s.tool`,
    );
    const kept = await many<{ run_id: string; tool: string; role: string; calls: number }>(
      sql,
      raw`SELECT run_id, tool, role, calls FROM run_tool_counts ORDER BY run_id, tool`,
    );
    return { fromSteps, kept };
  };

  it.each([
    ["on the writing thread", "off"],
    ["in the ingest worker", "0"],
  ])(
    "are what the steps hold, read %s, over two uploads of one run and a real Claude Code session",
    async (_, bytes) => {
      const store = path.join(dir, `store-${bytes}.db`);
      openDb(store).$client.close();
      const lines = realisticLines().trimEnd().split("\n");
      const first = path.join(dir, `first-${bytes}.jsonl`);
      const second = path.join(dir, `second-${bytes}.jsonl`);
      writeFileSync(first, lines.slice(0, 60).join("\n") + "\n");
      writeFileSync(second, lines.slice(60).join("\n") + "\n");
      const before = process.env.METRON_INGEST_WORKER_BYTES;
      process.env.METRON_INGEST_WORKER_BYTES = bytes;
      try {
        const sql = () => asSql(openDb(store).$client);
        const a = await ingestFile(sql(), first);
        const b = await ingestFile(sql(), second);
        const c = await ingestFile(sql(), sharedData("traces", "claude-code", "session_b.jsonl"), {
          defaults: { system: "Claude Code", model: "claude-test" },
        });
        expect(a.read_in_worker).toBe(bytes === "0");
        expect(b.inserted + a.inserted).toBeGreaterThan(100);
        expect(c.inserted).toBeGreaterThan(0);
      } finally {
        if (before === undefined) delete process.env.METRON_INGEST_WORKER_BYTES;
        else process.env.METRON_INGEST_WORKER_BYTES = before;
      }
      const { fromSteps, kept } = await compare(store);
      // Every tool has one role in its run here, so the kept role is the steps' role.
      expect(fromSteps.every((r) => (r as unknown as { roles: number }).roles === 1)).toBe(true);
      expect(kept).toEqual(fromSteps.map(({ run_id, tool, role, calls }) => ({ run_id, tool, role, calls })));
      // The worker run came in both uploads: its counts were added, not replaced.
      const worker = kept.filter((r) => r.tool === "read_query" && r.calls >= 100);
      expect(worker.length).toBeGreaterThan(0);
      // And the Claude Code session's calls are counted too (its MCP and built-in tools).
      expect(new Set(kept.map((r) => r.run_id)).size).toBeGreaterThanOrEqual(3);
    },
  );
});

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
import { asSql, type Sql } from "@/lib/db/sql";
import { many, raw } from "@/lib/db/typed";
import { realisticLines } from "@/lib/testing/realistic-traces";
import { sharedData } from "@/lib/testing/shared-data";
import { checkpointsSettled } from "./in-worker";
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
  afterAll(async () => {
    await checkpointsSettled(); // the worker's checkpoint after each upload writes in `dir`
    rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  });

  type Count = { run_id: string; tool: string; role: string; calls: number };
  /** Per run and tool: what `run_tool_counts` says, and the calls (and distinct roles) the store's steps hold. */
  const counts = async (sql: Sql) => ({
    kept: await many<Count>(sql, raw`SELECT run_id, tool, role, calls FROM run_tool_counts ORDER BY run_id, tool`),
    fromSteps: await many<Count & { roles: number }>(
      sql,
      raw`SELECT t.run_id, s.tool, min(s.tool_role) AS role, count(*) AS calls, count(DISTINCT s.tool_role) AS roles
          FROM steps s JOIN traces t ON t.id = s.trace_id WHERE s.tool_role IS NOT NULL
          GROUP BY t.run_id, s.tool ORDER BY t.run_id, s.tool`,
    ),
  });

  it.each([
    ["on the writing thread", "off"],
    ["in the ingest worker", "0"],
  ])(
    "are what the steps hold, read %s, over two uploads of one run and real LiveSQLBench agent traces",
    async (_, bytes) => {
      const db = openDb(path.join(dir, `store-${bytes}.db`));
      const sql = asSql(db.$client);
      const lines = realisticLines().trimEnd().split("\n");
      const first = path.join(dir, `first-${bytes}.jsonl`);
      const second = path.join(dir, `second-${bytes}.jsonl`);
      writeFileSync(first, lines.slice(0, 60).join("\n") + "\n");
      writeFileSync(second, lines.slice(60).join("\n") + "\n");
      const before = process.env.METRON_INGEST_WORKER_BYTES;
      process.env.METRON_INGEST_WORKER_BYTES = bytes;
      try {
        const a = await ingestFile(sql, first);
        expect(a.read_in_worker).toBe(bytes === "0");
        const afterFirst = (await counts(sql)).kept;
        await ingestFile(sql, second);
        const c = await ingestFile(sql, sharedData("traces", "livesqlbench-adk", "single_turn_samples.json"), {
          defaults: { system: "LiveSQLBench ADK", model: "adk-test" },
        });
        expect(c.inserted).toBeGreaterThan(0);
        const { kept, fromSteps } = await counts(sql);
        // Every tool has one role in its run here, so the kept role is the steps' role.
        expect(fromSteps.every((r) => r.roles === 1)).toBe(true);
        expect(kept).toEqual(fromSteps.map(({ run_id, tool, role, calls }) => ({ run_id, tool, role, calls })));
        // The run in both uploads: its counts were added to, not replaced.
        const grown = kept.filter((k) =>
          afterFirst.some((f) => f.run_id === k.run_id && f.tool === k.tool && f.calls < k.calls),
        );
        expect(grown.length).toBeGreaterThan(0);
        // The real agent's calls (its SQL and schema tools) are counted too.
        const adk = await many<{ id: string }>(sql, raw`SELECT id FROM runs WHERE system = 'LiveSQLBench ADK'`);
        expect(adk.length).toBeGreaterThan(0);
        const adkCounts = kept.filter((k) => adk.some((r) => r.id === k.run_id));
        expect(adkCounts.reduce((n, k) => n + k.calls, 0)).toBeGreaterThan(0);
      } finally {
        db.$client.close();
        if (before === undefined) delete process.env.METRON_INGEST_WORKER_BYTES;
        else process.env.METRON_INGEST_WORKER_BYTES = before;
      }
    },
  );
});

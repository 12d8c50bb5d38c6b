import { describe, expect, it } from "vitest";
import { ingestFile } from "@/lib/ingest/ingest-file";
import { many, raw } from "@/lib/db/typed";
import { metron } from "@/lib/testing/metron-cli";
import { useEngineStore } from "@/lib/testing/engines";
import { sharedData } from "@/lib/testing/shared-data";

describe("metron score list", () => {
  const store = useEngineStore("SQLite");

  it("prints no interval for a score over one question (a real Spider-Agent run of one trace) or on which every question agrees, one over three that differ", async () => {
    const single = await ingestFile(
      store.sql,
      sharedData("traces", "spider-agent", "spider-agent-tc_claude-3-7-sonnet_sf_bq024.json"),
    );
    const three = await ingestFile(store.sql, sharedData("traces", "livesqlbench-adk", "single_turn_samples.json"));
    const runOf = (r: typeof single) => r.runs[0].id;
    for (const run of [runOf(single), runOf(three)]) {
      const traces = await many(
        store.sql,
        raw<{ id: string }>`SELECT id FROM traces WHERE run_id = ${run} ORDER BY question_id`,
      );
      for (const [i, t] of traces.entries()) {
        expect((await metron(store.env, ["score", "set", t.id, "judge_ok", "true"])).code).toBe(0);
        expect((await metron(store.env, ["score", "set", t.id, "grounded", String(i !== 1)])).code).toBe(0);
      }
    }
    const one = await metron(store.env, ["score", "list", "--run", runOf(single)]);
    expect(one.out.trim().split("\n")).toEqual([
      "grounded (boolean, 1 trace): 1.0000 (from one question: no interval)",
      "judge_ok (boolean, 1 trace): 1.0000 (from one question: no interval)",
    ]);
    const many3 = await metron(store.env, ["score", "list", "--run", runOf(three)]);
    expect(many3.out.trim().split("\n")).toEqual([
      expect.stringMatching(/^grounded \(boolean, 3 traces\): 0\.6667 \[0\.\d{4}, 1\.0000\]$/),
      "judge_ok (boolean, 3 traces): 1.0000 (every question alike: no interval)",
    ]);
    // The JSON keeps the bounds (the API's shape) and says how many questions they resampled.
    const json = JSON.parse((await metron(store.env, ["score", "list", "--run", runOf(single), "--json"])).out) as {
      mean: { units: number; low: number };
    }[];
    expect(json[0].mean).toMatchObject({ units: 1, low: 1 });
  }, 120_000);
});

import { describe, expect, it } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { loadOverview } from "./overview";

const line = (q: string, correct: boolean) =>
  JSON.stringify({
    run: { name: "memo run", system: "Sophrosyne", model: "m" },
    question: { id: q },
    steps: [{ type: "tool_call", tool: "list_tables", result: "t" }],
    outcome: { correct },
  }) + "\n";

describe.each(ENGINES)("the Experiments overview, memoised by its runs' versions (%s store)", (engine) => {
  const store = useEngineStore(engine);

  it("is served from memory while no run changes, and recomputed as soon as one does", async () => {
    await ingestStream(store.sql, chunksOf(line("1", true)));
    const first = await loadOverview(store.sql, { withoutDataset: true });
    expect((await loadOverview(store.sql, { withoutDataset: true })).groups).toBe(first.groups); // the same object: memoised
    const ex = (o: typeof first) => Object.values(o.groups[0].cells.m)[0].stats.ex?.estimate;
    expect(ex(first)).toBe(1);
    // A new trace bumps the run's version: the next view sees it.
    await ingestStream(store.sql, chunksOf(line("2", false)));
    const second = await loadOverview(store.sql, { withoutDataset: true });
    expect(second.groups).not.toBe(first.groups);
    expect(ex(second)).toBe(0.5);
  });
});

import { describe, expect, it } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { turnsDuring } from "@/lib/testing/event-loop";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { cellsInOneStatement, inTurns, listOverviewCells, loadOverview } from "./overview";
import { many, qb } from "@/lib/db/typed";

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

describe.each(ENGINES)("the Experiments cells, one per turn of the event loop (%s store)", (engine) => {
  // Groups whose names order differently by UTF-16 unit and by code point ("😀" is U+1F600, after U+FFFD).
  const benchmarks = ["zeta", "Alpha", "\uFFFDx", "😀bench", "émile"];
  const store = useEngineStore(engine, async (s) => {
    const lines = benchmarks.flatMap((benchmark, i) =>
      ["B", "a"].flatMap((system) =>
        ["m2", "m1"].map(
          (model) =>
            JSON.stringify({
              run: { name: `r ${i} ${system} ${model}`, system, model, benchmark },
              question: { id: `q${i}` },
              steps: [{ type: "tool_call", tool: "list_tables", result: "t" }],
              outcome: { correct: (i + system.length) % 2 === 0 },
            }) + "\n",
        ),
      ),
    );
    // A second run in one cell: a cell pools its runs.
    lines.push(lines[0].replace('"r 0 B m2"', '"r 0 B m2 again"').replace('"q0"', '"q9"'));
    await ingestStream(s.sql, chunksOf(lines.join("")));
  });

  it("gives what one statement over every run gives, in the same order, read aside or cell by cell", async () => {
    const ids = (await many(store.sql, qb(store.sql).selectFrom("runs").select("id"))).map((r) => r.id);
    expect(ids).toHaveLength(21);
    const expected = await cellsInOneStatement(store.sql, ids);
    expect(expected).toHaveLength(20);
    expect(expected.map((c) => c.group).filter((g, i, all) => all.indexOf(g) === i)).toEqual([
      "Alpha",
      "zeta",
      "émile",
      "\uFFFDx",
      "😀bench",
    ]);
    expect(expected.find((c) => c.runList.includes("again"))?.traces).toBe(2);
    // Outside a transaction: one statement (on SQLite read aside, in a worker's connection).
    expect(await listOverviewCells(store.sql, ids)).toEqual(expected);
    // Inside one, SQLite reads on the transaction's own connection: a statement per cell, the event loop turning
    // between them (its statements run synchronously: without the turns, it would not turn at all).
    const inside = await store.sql.transaction((tx) => turnsDuring(() => listOverviewCells(tx, ids)), {
      readOnly: true,
    });
    expect(inside.value).toEqual(expected);
    if (engine === "SQLite") expect(inside.turns).toBeGreaterThanOrEqual(19);
  });
});

describe("a computation given in parts", () => {
  it("lets the event loop turn once it has held it 20 ms, and gives the computation's value", async () => {
    function* parts(): Generator<void, number, void> {
      for (let i = 0; i < 20; i++) {
        const until = performance.now() + 5; // 5 ms of work per part: 100 ms in all
        while (performance.now() < until);
        yield;
      }
      return 42;
    }
    const { value, turns } = await turnsDuring(() => inTurns(parts()));
    expect(value).toBe(42);
    // Every 4th part or so (20 ms); run at once, the loop would not turn at all.
    expect(turns).toBeGreaterThanOrEqual(3);
    expect(turns).toBeLessThanOrEqual(20);
  });
});

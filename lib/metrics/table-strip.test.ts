import { describe, expect, it } from "vitest";
import { diffResults } from "@/lib/eval/result-diff";
import { allGoldSeenAt, buildTableStrip } from "./table-strip";

const steps = [
  { seq: 0, tables: [], exploratory: false },
  { seq: 1, tables: ["Konzert"], exploratory: true },
  { seq: 2, tables: ["sänger"], exploratory: true },
  { seq: 3, tables: ["konzert", "sänger"], exploratory: false },
  { seq: 4, tables: ["stadion"], exploratory: false },
  { seq: 5, tables: ["sänger"], exploratory: true },
];

describe("buildTableStrip", () => {
  it("marks gold, explored counts, flags, final tables and what stands out", () => {
    const chips = buildTableStrip({
      databaseTables: ["stadion", "sänger", "konzert", "sänger_im_konzert"],
      gold: ["konzert", "stadion"],
      flagged: ["sänger", "sänger_im_konzert"],
      final: ["konzert", "stadion"],
      steps,
    });
    expect(chips.map((c) => c.name)).toEqual(["konzert", "stadion", "sänger", "sänger_im_konzert"]);
    const [konzert, stadion, saenger, sik] = chips;
    expect(konzert).toMatchObject({
      gold: true,
      explored: 1,
      touched: 2,
      inFinal: true,
      flagged: false,
      goldNeverExplored: false,
      seqs: [1, 3],
    });
    expect(stadion).toMatchObject({ gold: true, explored: 0, touched: 1, goldNeverExplored: true, seqs: [4] });
    expect(saenger).toMatchObject({ gold: false, explored: 2, flagged: true, nonGoldExplored: true, seqs: [2, 3, 5] });
    expect(sik).toMatchObject({ touched: 0, nonGoldExplored: false, goldNeverExplored: false });
  });
  it("makes no gold claims without gold tables", () => {
    const chips = buildTableStrip({ databaseTables: null, gold: null, flagged: null, final: null, steps });
    expect(chips.every((c) => !c.goldNeverExplored && !c.nonGoldExplored)).toBe(true);
  });
});

describe("allGoldSeenAt", () => {
  it("is the first step after which every gold table was touched", () => {
    expect(allGoldSeenAt(["konzert", "stadion"], steps)).toBe(4);
    expect(allGoldSeenAt(["konzert"], steps)).toBe(1);
    expect(allGoldSeenAt(["nirgendwo"], steps)).toBeNull();
    expect(allGoldSeenAt(null, steps)).toBeNull();
  });
});

describe("diffResults", () => {
  it("finds missing and extra rows as multisets, capped, with counts", () => {
    const d = diffResults(
      [
        [1, "a"],
        [2, "b"],
        [2, "b"],
        [3, "c"],
      ],
      [
        [2, "b"],
        [4, "d"],
        [1, "a"],
        [5, "e"],
      ],
      1,
    );
    expect(d).toEqual({ missing: [[2, "b"]], extra: [[4, "d"]], missingCount: 2, extraCount: 2, commonCount: 2 });
  });
});

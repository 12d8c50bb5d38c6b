// What directives would have saved, on Spider-de: a run that describes every table of each question's database,
// measured against the oracle's and the computed directives (issue 30: computed once "saved" more than the oracle,
// counting calls on gold tables it would have hidden).
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { computeDirectiveSavings } from "@/lib/environment/directive-savings";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { useEngineStore } from "@/lib/testing/engines";
import { jsonl, makeStep } from "@/lib/testing/factories";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { sharedData } from "@/lib/testing/shared-data";
import { estimateSavings } from "./directive-savings";
import { many, raw } from "@/lib/db/typed";

describe("directive savings", () => {
  it("never counts a call on a gold table as saved, and says how many gold tables a strategy hides", () => {
    const e = estimateSavings([
      { gold: ["a"], exploratoryCalls: [["a"], ["b"], ["c"], []], flagged: ["a", "b"] },
      { gold: ["x"], exploratoryCalls: [["y"]], flagged: ["y"] },
    ]);
    expect(e).toMatchObject({ saved: 2, callsOnHiddenGold: 1, hiddenGold: 1, tracesHidingGold: 1, exploratory: 5 });
  });

  const store = useEngineStore("SQLite", async () => {
    await importSpiderDe(store);
  });

  it("on Spider-de, computed directives save no more than the oracle, and the gold tables they hide are counted", async () => {
    const dev = JSON.parse(readFileSync(sharedData("spider-de", "dev.json"), "utf8")) as { db_id: string }[];
    const tablesOf = new Map<string, string[]>();
    for (const r of await many(
      store.sql,
      raw<{ db: string; tables: string }>`SELECT db_id AS db, tables FROM databases`,
    ))
      tablesOf.set(
        r.db,
        (JSON.parse(r.tables) as { name: string }[]).map((t) => t.name),
      );
    const run = { name: "describe-everything", system: "No Directives", model: "m", benchmark: "spider-de" };
    const lines = dev.slice(0, 120).map((q, i) => ({
      run,
      question: { id: String(i) },
      steps: tablesOf.get(q.db_id)!.map((t) => makeStep({ tool: "describe_table", args: { table_name: t } })),
      final_sql: "SELECT 1",
    }));
    const report = await ingestStream(store.sql, chunksOf(jsonl(...lines)));
    const s = (await computeDirectiveSavings(store.sql, report.runs[0].id, { indexDir: store.dir }))!;
    // The oracle flags exactly the non-gold tables: every call on them is saved, none on gold.
    expect(s.oracle.hiddenGold).toBe(0);
    expect(s.oracle.saved).toBe(s.oracle.exploratory - s.oracle.gold);
    expect(s.computed.traces).toBe(s.oracle.traces);
    expect(s.computed.saved).toBeLessThanOrEqual(s.oracle.saved);
    expect(s.computed.estimated!).toBeGreaterThanOrEqual(s.oracle.estimated!);
    // Computed directives do hide gold tables on these questions; each such call is counted apart.
    expect(s.computed.hiddenGold).toBeGreaterThan(0);
    expect(s.computed.callsOnHiddenGold).toBe(s.computed.hiddenGold);
  });
});

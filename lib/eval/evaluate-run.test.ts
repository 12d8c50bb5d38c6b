import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "@/lib/db/sql";
import { importDataset } from "@/lib/datasets/import-dataset";
import { sha256File } from "@/lib/datasets/inspect";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, engineStore } from "@/lib/testing/engines";
import { jsonl } from "@/lib/testing/factories";
import { sharedData } from "@/lib/testing/shared-data";
import { evaluateRun } from "./evaluate-run";
import { many, one, raw } from "@/lib/db/typed";

describe.each(ENGINES)("execution accuracy on Spider-de (%s store)", (engine) => {
  let sql: Sql;
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    ({ sql, dir, cleanup } = await engineStore(engine));
  });
  afterAll(() => cleanup());

  it("gold SQL as the prediction: 978 correct, 52 gold errors, database files unchanged", async () => {
    await importDataset(
      sql,
      {
        name: "spider-de",
        format: "spider",
        questions: sharedData("spider-de", "dev.json"),
        databases: sharedData("spider-de", "database"),
      },
      dir,
    );
    const before = await many(sql, raw<{ path: string; sha256: string }>`SELECT path, sha256 FROM databases`);
    const dev = JSON.parse(readFileSync(sharedData("spider-de", "dev.json"), "utf8")) as { query: string }[];
    const lines = dev.map((q, i) => ({
      run: { name: "gold-as-pred", system: "oracle", model: "none", benchmark: "spider-de" },
      question: { id: String(i) },
      final_sql: q.query,
      steps: [],
    }));
    const report = await ingestStream(sql, chunksOf(jsonl(...lines), 1 << 16));
    expect(report.inserted).toBe(1030);
    const { counts } = await evaluateRun(sql, report.runs[0].id);
    expect(counts).toEqual({
      correct: 978,
      wrong_result: 0,
      pred_error: 0,
      gold_error: 52,
      timeout: 0,
      no_submission: 0,
      not_evaluated: 0,
    });
    const goldErrors = await many(
      sql,
      raw<{ e: string }>`SELECT DISTINCT ex_error AS e FROM traces WHERE ex_outcome = 'gold_error'`,
    );
    expect(goldErrors.map((r) => r.e)).toEqual(['near "alter": syntax error']);
    for (const db of before) expect(await sha256File(db.path)).toBe(db.sha256);
  });

  it("tells wrong results, prediction errors and missing submissions apart", async () => {
    const lines = [
      { question: { id: "0" }, final_sql: "SELECT count(*) + 1 FROM sänger" },
      { question: { id: "1" }, final_sql: "SELECT count(*) FROM nirgendwo" },
      { question: { id: "5" }, steps: [] },
      // Gold 22 groups concerts by stadium; this prediction keeps no group.
      {
        question: { id: "22" },
        final_sql:
          "SELECT T2.name, count(*) FROM konzert AS T1 JOIN stadion AS T2 ON T1.stadion_id = T2.stadion_id GROUP BY T1.stadion_id HAVING count(*) > 100",
      },
      // Same rows as gold 22 in another order: equal as sets.
      {
        question: { id: "23" },
        final_sql:
          "SELECT T2.name, count(*) FROM konzert AS T1 JOIN stadion AS T2 ON T1.stadion_id = T2.stadion_id GROUP BY T1.stadion_id ORDER BY 2 DESC, 1",
      },
    ].map((l) => ({ run: { name: "mixed", system: "s", model: "m", benchmark: "spider-de" }, steps: [], ...l }));
    const report = await ingestStream(sql, chunksOf(jsonl(...lines)));
    const { counts } = await evaluateRun(sql, report.runs[0].id);
    expect(counts).toMatchObject({ correct: 1, wrong_result: 2, pred_error: 1, no_submission: 1 });
    expect(
      (await one(
        sql,
        raw<{ e: string }>`SELECT ex_error AS e FROM traces WHERE question_id = '1' AND ex_outcome = 'pred_error'`,
      ))!.e,
    ).toMatch(/no such table/);
  });
});

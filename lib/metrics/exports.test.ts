import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { loadOverview } from "@/lib/db/queries/overview";
import { listTraces, listTraceTexts } from "@/lib/db/queries/traces";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { jsonl } from "@/lib/testing/factories";
import { csvResponse } from "./csv";
import { overviewTable, tracesTable } from "./exports";

// What a spreadsheet evaluates: a cell starting with one of these.
const FORMULA = /^[=+\-@\t\r]/;
const HOSTILE = ['=HYPERLINK("http://evil.example","click")', "+1+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"];

async function cells(response: Response): Promise<string[]> {
  return (parse(await response.text(), { relax_column_count: true }) as string[][]).flat();
}

describe.each(ENGINES)("CSV exports cannot attack a spreadsheet (%s store)", (engine) => {
  const store = useEngineStore(engine);

  it("escapes question ids, run names, models and systems that start with =, +, -, @, tab or CR", async () => {
    const lines = HOSTILE.map((h, i) => ({
      run: {
        name: h,
        system: HOSTILE[(i + 1) % HOSTILE.length],
        model: HOSTILE[(i + 2) % HOSTILE.length],
        benchmark: "b",
      },
      question: { id: h, text: h, db_id: h },
      steps: [],
      final_sql: h,
      outcome: { correct: i % 2 === 0 },
    }));
    const report = await ingestStream(store.sql, chunksOf(jsonl(...lines)));
    expect(report.inserted).toBe(HOSTILE.length);
    const overview = overviewTable((await loadOverview(store.sql, { withoutDataset: true })).groups);
    const all = await cells(csvResponse("o.csv", overview.columns, overview.rows));
    for (const h of HOSTILE.slice(0, 4)) expect(all).toContain(`'${h}`); // kept, as text
    for (const run of report.runs) {
      const t = tracesTable(
        (await listTraces(store.sql, run.id, { sort: "question", dir: "asc", page: 1, pageSize: 100 })).rows,
        await listTraceTexts(store.sql, run.id),
      );
      all.push(...(await cells(csvResponse("t.csv", t.columns, t.rows))));
    }
    const evaluated = all.filter((c) => FORMULA.test(c) && !/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(c));
    expect(evaluated).toEqual([]);
  });

  it("quotes every field with a line break: real multi-line final SQL round-trips, one row per trace (issue 30)", async () => {
    const { ingestFile } = await import("@/lib/ingest/ingest-file");
    const { sharedData } = await import("@/lib/testing/shared-data");
    const report = await ingestFile(store.sql, sharedData("traces", "livesqlbench-adk", "single_turn_samples.json"));
    // The audit's case: a line break and nothing else a CSV writer quotes for (no comma, no quote).
    const bare = await ingestStream(
      store.sql,
      chunksOf(
        jsonl({
          run: { name: "bare", system: "s", model: "m", benchmark: "b" },
          question: { id: "1", text: "Wie heißt\nder Held" },
          steps: [],
          final_sql: "SELECT superhero_name\nFROM superhero",
        }),
      ),
    );
    let multiline = 0;
    for (const run of [...report.runs, ...bare.runs]) {
      const { rows } = await listTraces(store.sql, run.id, { sort: "question", dir: "asc", page: 1, pageSize: 500 });
      const t = tracesTable(rows, await listTraceTexts(store.sql, run.id));
      const text = await csvResponse("t.csv", t.columns, t.rows).text();
      const parsed = parse(text, { columns: true }) as Record<string, string>[]; // strict: no relaxed quotes
      expect(parsed).toHaveLength(rows.length);
      const sqlAt = t.columns.indexOf("final_sql");
      for (const [i, row] of t.rows.entries()) {
        const sql = row[sqlAt];
        if (typeof sql !== "string") continue;
        expect(parsed[i].final_sql.replace(/^'(?=[=+\-@\t\r])/, "")).toBe(sql);
        if (/\n/.test(sql)) multiline++;
      }
      // A bare LF (or CR) inside a field is always inside quotes.
      expect(
        text
          .replace(/"(?:[^"]|"")*"/g, "")
          .split("\r\n")
          .every((l) => !/[\r\n]/.test(l)),
      ).toBe(true);
    }
    expect(multiline).toBeGreaterThan(0); // the real file has SQL over several lines
  });

  it("names the matrix's EX for what it is, apart from a run's correct/judged (issue 30)", async () => {
    const overview = overviewTable((await loadOverview(store.sql, { withoutDataset: true })).groups);
    expect(overview.columns).toContain("ex_mean_over_questions");
    expect(overview.columns).not.toContain("ex");
  });

  it("streams a large export in pieces and keeps numbers as numbers", async () => {
    const rows = Array.from({ length: 5000 }, (_, i) => [`q${i}`, -i, i / 3]);
    const response = csvResponse("big.csv", ["id", "neg", "third"], rows);
    const reader = response.body!.getReader();
    let chunks = 0;
    for (;;) {
      const { done } = await reader.read();
      if (done) break;
      chunks++;
    }
    expect(chunks).toBeGreaterThan(5);
    const parsed = parse(await csvResponse("big.csv", ["id", "neg", "third"], rows).text(), { columns: true }) as {
      neg: string;
    }[];
    expect(parsed[7].neg).toBe("-7");
  });
});

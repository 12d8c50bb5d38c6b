// Spider 2.0's comparison, rule by rule from xlang-ai/Spider2 spider2-lite/evaluation_suite/evaluate.py
// (compare_pandas_table, compare_multi_pandas_table, resolve_gold_paths), then end to end on Spider-de's real
// databases laid out as a Spider2-lite dataset (questions JSONL, gold sql/, exec_result/ CSVs, spider2lite_eval.jsonl).
import Database from "better-sqlite3";
import { stringify } from "csv-stringify/sync";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sql } from "@/lib/db/sql";
import { importDataset } from "@/lib/datasets/import-dataset";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, engineStore } from "@/lib/testing/engines";
import { jsonl } from "@/lib/testing/factories";
import { sharedData } from "@/lib/testing/shared-data";
import type { SqlValue } from "@/lib/sandbox/sandbox";
import { evaluateRun } from "./evaluate-run";
import { csvAnswerColumns, pyFloat, readCsvColumn, resultColumns, spider2Match } from "./spider2";
import { many, one, raw } from "@/lib/db/typed";

const cols = (rows: SqlValue[][]) => resultColumns(rows);
const csv = (text: string) => csvAnswerColumns(text);

describe("Spider 2.0's rules", () => {
  it("compares columns: extra and reordered predicted columns do not matter, a missing one does", () => {
    const gold = csv("name,total\nAda,3\nBob,5\n");
    expect(
      spider2Match(
        cols([
          [3, "Ada"],
          [5, "Bob"],
        ]),
        [gold],
      ),
    ).toEqual({ ok: true, match: true });
    expect(
      spider2Match(
        cols([
          [1, "Ada", 3, "x"],
          [2, "Bob", 5, "y"],
        ]),
        [gold],
      ),
    ).toMatchObject({ match: true });
    expect(spider2Match(cols([["Ada"], ["Bob"]]), [gold])).toMatchObject({ match: false });
    // BIRD's set comparison would judge the reordered one wrong; Spider 2.0 compares each column on its own.
  });

  it("condition_cols chooses gold columns by position; ignore_order sorts each column on its own", () => {
    const gold = csv("name,total\nAda,3\nBob,5\n");
    const wrongTotals = cols([
      ["Ada", 9],
      ["Bob", 9],
    ]);
    expect(spider2Match(wrongTotals, [gold])).toMatchObject({ match: false });
    expect(spider2Match(wrongTotals, [gold], { condition_cols: [0] })).toMatchObject({ match: true });
    expect(spider2Match(wrongTotals, [gold], { condition_cols: [1] })).toMatchObject({ match: false });
    const reversed = cols([
      ["Bob", 5],
      ["Ada", 3],
    ]);
    expect(spider2Match(reversed, [gold])).toMatchObject({ match: false });
    expect(spider2Match(reversed, [gold], { ignore_order: true })).toMatchObject({ match: true });
    // Each column sorted on its own: rows need not pair up (as in the script).
    expect(
      spider2Match(
        cols([
          ["Ada", 5],
          ["Bob", 3],
        ]),
        [gold],
        { ignore_order: true },
      ),
    ).toMatchObject({ match: true });
    expect(spider2Match(cols([["Ada", 3]]), [gold], { ignore_order: true })).toMatchObject({ match: false });
    expect(spider2Match(wrongTotals, [gold], { condition_cols: [5] })).toEqual({
      ok: false,
      error: "condition_cols names column 5; the gold answer has 2 columns",
    });
  });

  it("numbers within 0.01, missing as 0, types as the CSV round trip leaves them", () => {
    const gold = csv("v\n1.004\n2\n");
    expect(spider2Match(cols([[1], [2.009]]), [gold])).toMatchObject({ match: true });
    expect(spider2Match(cols([[1], [2.02]]), [gold])).toMatchObject({ match: false });
    // An empty cell and a NULL are NaN, and NaN is compared as 0 (pandas writes a lone empty cell as "").
    expect(spider2Match(cols([[0], [null]]), [csv('v\n""\n0\n')])).toMatchObject({ match: true });
    // read_csv skips blank lines, as pandas does.
    expect(csv("v\n\n0\n")[0]).toHaveLength(1);
    // Text that reads as a number is a number after to_csv/read_csv: '2019' equals 2019.
    expect(spider2Match(cols([["2019"], ["2020"]]), [csv("year\n2019\n2020\n")])).toMatchObject({ match: true });
    // In a column that also holds text, a number stays text and never equals a number.
    expect(readCsvColumn(["1", "a"])).toEqual([
      { kind: "str", s: "1" },
      { kind: "str", s: "a" },
    ]);
    expect(spider2Match(cols([["1"], ["a"]]), [csv("v\n1\nb\n")])).toMatchObject({ match: false });
    expect(readCsvColumn(["1", ""])[0]).toEqual({ kind: "num", n: 1, py: "1.0" });
    expect(readCsvColumn(["NA", "x"])[0]).toEqual({ kind: "na" });
  });

  it("several gold answers: any one matching is correct, each with its own condition_cols when given a list each", () => {
    const a = csv("x,y\n1,2\n");
    const b = csv("x,y\n1,3\n");
    expect(spider2Match(cols([[1, 3]]), [a, b])).toMatchObject({ match: true });
    expect(spider2Match(cols([[1, 4]]), [a, b])).toMatchObject({ match: false });
    expect(spider2Match(cols([[1, 4]]), [a, b], { condition_cols: [[1], [0]] })).toMatchObject({ match: true });
    expect(spider2Match(cols([[1, 4]]), [a, b], { condition_cols: [0] })).toMatchObject({ match: true });
    // The script's spellings of "no condition": [], [[]], [null].
    for (const none of [[], [[]], [null]])
      expect(spider2Match(cols([[1, 4]]), [a, b], { condition_cols: none })).toMatchObject({ match: false });
    // A list per answer with too few lists fails as the script does (an IndexError) once it gets there.
    expect(spider2Match(cols([[9, 9]]), [a, b, a], { condition_cols: [[1], [0]] })).toMatchObject({ ok: false });
    expect(spider2Match(cols([[1, 3]]), [a, b, a], { condition_cols: [[1], [1]] })).toMatchObject({ match: true });
  });

  it("sorts by Python's str: floats print as Python prints them", () => {
    expect([1, 1.5, 1e16, 1.5e16, 1e-5, 0.0001, 123.456, -2, 0.1 + 0.2].map(pyFloat)).toEqual([
      "1.0",
      "1.5",
      "1e+16",
      "1.5e+16",
      "1e-05",
      "0.0001",
      "123.456",
      "-2.0",
      "0.30000000000000004",
    ]);
    // "10" sorts before "9" as text: both sides sort the same way, so 9, 10 in either order match.
    expect(spider2Match(cols([[10], [9]]), [csv("v\n9\n10\n")], { ignore_order: true })).toMatchObject({ match: true });
  });
});

// ---- end to end on Spider-de's databases ----

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** How pandas' to_csv writes a result (floats as Python prints them, NULL empty): a gold answer file. */
function pandasCsv(columns: string[], rows: SqlValue[][]): string {
  const floatCol = columns.map(
    (_, c) =>
      rows.every((r) => r[c] === null || typeof r[c] === "number") &&
      rows.some((r) => r[c] === null || !Number.isInteger(r[c])),
  );
  const text = rows.map((r) =>
    r.map((v, c) => (v === null ? "" : typeof v === "number" && floatCol[c] ? pyFloat(v) : String(v))),
  );
  return stringify([columns, ...text]);
}

interface Picked {
  id: string;
  dbId: string;
  question: string;
  gold: string;
  columns: string[];
  kind: 0 | 1 | 2;
}

describe.each(ENGINES)("Spider 2.0 evaluation of a Spider2-lite dataset on Spider-de (%s store)", (engine) => {
  let sql: Sql;
  let dir: string;
  let cleanup: () => Promise<void>;
  let folder: string;
  const picked: Picked[] = [];

  beforeAll(async () => {
    ({ sql, dir, cleanup } = await engineStore(engine));
    folder = mkdtempSync(path.join(os.tmpdir(), "metron-spider2-"));
    const dev = JSON.parse(readFileSync(sharedData("spider-de", "dev.json"), "utf8")) as {
      db_id: string;
      question: string;
      query: string;
    }[];
    // Questions whose gold result has 2+ rows and 2+ distinctly named columns, and whose first column read backwards
    // differs from itself: each comparison below then has one right answer.
    const handles = new Map<string, Database.Database>();
    for (const [i, q] of dev.entries()) {
      if (picked.length >= 36) break;
      let db = handles.get(q.db_id);
      if (!db) {
        db = new Database(sharedData("spider-de", "database", q.db_id, `${q.db_id}.sqlite`), { readonly: true });
        handles.set(q.db_id, db);
      }
      try {
        const stmt = db.prepare(q.query).raw(true);
        const columns = stmt.columns().map((c) => c.name);
        const rows = stmt.all() as SqlValue[][];
        const first = rows.map((r) => JSON.stringify(r[0]));
        if (rows.length < 2 || columns.length < 2 || new Set(columns.map((c) => c.toLowerCase())).size < columns.length)
          continue;
        if (first.join() === [...first].reverse().join() || new Set(first).size < 2) continue;
        const n = picked.length;
        const id = `local${String(i).padStart(3, "0")}`;
        const gold = q.query.trim().replace(/;$/, ""); // wrapped in a subquery below
        picked.push({ id, dbId: q.db_id, question: q.question, gold, columns, kind: (n % 3) as 0 | 1 | 2 });
        // Odd questions have no gold SQL, only answer CSVs: one `<id>.csv`, or a wrong `_a` and a right `_b`.
        if (n % 2 === 1) {
          mkdirSync(path.join(folder, "gold", "exec_result"), { recursive: true });
          const right = pandasCsv(columns, rows);
          if (n % 4 === 1) writeFileSync(path.join(folder, "gold", "exec_result", `${id}.csv`), right);
          else {
            writeFileSync(path.join(folder, "gold", "exec_result", `${id}_a.csv`), pandasCsv(columns, rows.slice(1)));
            writeFileSync(path.join(folder, "gold", "exec_result", `${id}_b.csv`), right);
          }
        } else {
          mkdirSync(path.join(folder, "gold", "sql"), { recursive: true });
          writeFileSync(path.join(folder, "gold", "sql", `${id}.sql`), q.query);
        }
      } catch {
        continue;
      }
    }
    for (const h of handles.values()) h.close();
    writeFileSync(
      path.join(folder, "spider2-lite.jsonl"),
      jsonl(...picked.map((p) => ({ instance_id: p.id, db: p.dbId, question: p.question, external_knowledge: null }))),
    );
    // kind 0: every column, in order; 1: ignore_order; 2: only the first column counts.
    writeFileSync(
      path.join(folder, "gold", "spider2lite_eval.jsonl"),
      jsonl(
        ...picked.map((p) =>
          p.kind === 0
            ? { instance_id: p.id, condition_cols: [], ignore_order: false }
            : p.kind === 1
              ? { instance_id: p.id, condition_cols: [], ignore_order: true }
              : { instance_id: p.id, condition_cols: [0], ignore_order: false },
        ),
      ),
    );
    const report = await importDataset(
      sql,
      {
        name: "spider2-de",
        format: "spider2-lite",
        questions: path.join(folder, "spider2-lite.jsonl"),
        databases: sharedData("spider-de", "database"),
        gold: path.join(folder, "gold"),
      },
      dir,
    );
    expect(report.questions).toBe(picked.length);
  });
  afterAll(async () => {
    await cleanup();
    rmSync(folder, { recursive: true, force: true });
  });

  async function runOf(name: string, predict: (p: Picked) => string) {
    const lines = picked.map((p) => ({
      run: { name, system: "s", model: "m", benchmark: "spider2-de" },
      question: { id: p.id, db_id: p.dbId },
      final_sql: predict(p),
      steps: [],
    }));
    const report = await ingestStream(sql, chunksOf(jsonl(...lines)));
    return report.runs[0].id;
  }
  const outcomes = async (runId: string) =>
    new Map(
      (
        await many(
          sql,
          raw<{
            q: string;
            o: string;
            e: string | null;
          }>`SELECT question_id AS q, ex_outcome AS o, ex_error AS e FROM traces WHERE run_id = ${runId}`,
        )
      ).map((r) => [r.q, r]),
    );

  it("has picked enough real questions of each kind", () => {
    expect(picked.length).toBeGreaterThanOrEqual(30);
  });

  it("gold SQL as the prediction is correct against gold SQL and against one or several answer CSVs", async () => {
    const runId = await runOf("gold-as-pred", (p) => p.gold);
    const { counts } = await evaluateRun(sql, runId); // Spider2-lite: Spider 2.0's rules by default
    expect(counts.correct).toBe(picked.length);
    expect(
      JSON.parse((await one(sql, raw<{ s: string }>`SELECT ex_settings AS s FROM runs WHERE id = ${runId}`))!.s),
    ).toMatchObject({ mode: "spider2" });
  });

  it("an extra column and reversed columns: correct by Spider 2.0's rules, wrong as BIRD's sets", async () => {
    const runId = await runOf(
      "extra-and-reordered",
      (p) => `SELECT 'extra' AS extra_col, ${[...p.columns].reverse().map(quote).join(", ")} FROM (${p.gold})`,
    );
    expect((await evaluateRun(sql, runId, { mode: "spider2" })).counts.correct).toBe(picked.length);
    const asSets = await evaluateRun(sql, runId, { mode: "set" });
    const withSql = picked.filter((_, n) => n % 2 === 0).length;
    expect(asSets.counts.wrong_result).toBe(withSql);
    // The CSV-only questions cannot be compared as rows, and say why.
    expect(asSets.counts.not_evaluated).toBe(picked.length - withSql);
    const o = await outcomes(runId);
    expect(o.get(picked[1].id)!.e).toMatch(/gold answers are CSV files, compared by Spider 2.0's rules/);
  });

  it("ignore_order: rows read backwards are correct only where the question allows any order", async () => {
    const runId = await runOf(
      "reversed-rows",
      (p) =>
        `SELECT ${p.columns.map(quote).join(", ")} FROM (SELECT row_number() OVER () AS rn__, * FROM (${p.gold})) ORDER BY rn__ DESC`,
    );
    await evaluateRun(sql, runId, { mode: "spider2" });
    const o = await outcomes(runId);
    for (const p of picked) expect([p.id, o.get(p.id)!.o]).toEqual([p.id, p.kind === 1 ? "correct" : "wrong_result"]);
  });

  it("condition_cols: only the first column right is correct only where only the first column counts", async () => {
    const runId = await runOf(
      "first-column-only",
      (p) => `SELECT ${quote(p.columns[0])}, 'wrong' AS second FROM (${p.gold})`,
    );
    await evaluateRun(sql, runId, { mode: "spider2" });
    const o = await outcomes(runId);
    for (const p of picked) expect([p.id, o.get(p.id)!.o]).toEqual([p.id, p.kind === 2 ? "correct" : "wrong_result"]);
  });

  it("a rerun's trace is judged with its run's own comparison", async () => {
    const runId = await runOf("kept-settings", (p) => `SELECT 'extra' AS e, * FROM (${p.gold})`);
    await evaluateRun(sql, runId, { mode: "set" });
    const rerun = await one(
      sql,
      raw<{ id: string }>`SELECT id FROM traces WHERE run_id = ${runId} AND question_id = ${picked[0].id}`,
    );
    await evaluateRun(sql, runId, { traceIds: [rerun!.id] });
    expect((await outcomes(runId)).get(picked[0].id)!.o).toBe("wrong_result"); // sets, as the run was judged
  });
});

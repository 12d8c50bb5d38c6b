/**
 * The SQLite writer's batches: traces are written SAVEPOINT_BATCH at a time in one savepoint, and a batch in which
 * SQLite refuses a trace is rolled back and written again trace by trace. What is stored must be exactly what the same
 * file stores when the refused trace's line never parsed: its batch's other traces, runs, tool counts and versions,
 * and nothing of the refused trace (not even a run only it named).
 */
import { afterEach, expect, it } from "vitest";
import { many, raw } from "@/lib/db/typed";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { realisticLines, storedRows } from "@/lib/testing/realistic-traces";
import { ingestStream } from "./ingest";
import { SAVEPOINT_BATCH } from "./sqlite-writer";
import { BATCH_TEXT_CHARS } from "./upload-writer";

let cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups) c();
  cleanups = [];
});

function store() {
  const t = tempDb();
  cleanups.push(t.cleanup);
  return t;
}

/** A trace whose run is named by it alone, with the question id the store's trigger refuses. */
const refused = (n: number) =>
  JSON.stringify({
    run: { name: `lonely run ${n}`, system: "No Directives", model: "gpt-lonely" },
    question: { id: `refuse-${n}` },
    steps: [{ type: "tool_call", tool: "list_tables", args: {}, result: "a\nb" }],
    outcome: { correct: true },
  });

/**
 * Spider-de's realistic traces three times (the second and third copies in runs of their own models, so runs are
 * first met in the middle of the file), 370 lines, with a line `at` each of the given places: a trace the store refuses
 * (`refuse`), or a line that is not JSON (`skip`).
 */
function file(at: number[], kind: "refuse" | "skip"): string {
  const copy = realisticLines().split("\n").filter(Boolean);
  const lines = [
    ...copy,
    ...copy.map((l) => l.replaceAll("gpt-test", "gpt-second")),
    ...copy.map((l) => l.replaceAll("gpt-test", "gpt-third")),
  ];
  at.forEach((line, n) => lines.splice(line - 1, 0, kind === "refuse" ? refused(n) : "{not json"));
  return lines.join("\n") + "\n";
}

async function ingestWith(at: number[], kind: "refuse" | "skip") {
  const t = store();
  // SQLite refusing a trace as it refuses one it cannot store: an error from the statement that writes it.
  t.db.$client.exec(
    "CREATE TRIGGER refuse BEFORE INSERT ON traces WHEN NEW.question_id LIKE 'refuse-%' " +
      "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
  );
  const report = await ingestStream(t.sql, chunksOf(file(at, kind), 1 << 14), {});
  const { errors, ...stored } = await storedRows(t.sql); // errors: the same lines, with other messages
  return {
    report,
    stored,
    versions: await many<{ name: string; model: string; version: number }>(
      t.sql,
      raw`SELECT name, model, version FROM runs ORDER BY model, name`,
    ),
    errors: errors.map((e) => e.line).sort((a, b) => Number(a) - Number(b)),
  };
}

it("a trace SQLite refuses in the middle of a batch fails alone: the batch's others are stored as if it never parsed", async () => {
  // The first batch, a batch in which the third copy's runs are first met, and the file's last line.
  const at = [5, 2 * 126 + 5, 3 * 126 + 3];
  expect(SAVEPOINT_BATCH).toBeLessThan(2 * 126); // the second place is past the first batch
  const withRefusal = await ingestWith(at, "refuse");
  const withBadLines = await ingestWith(at, "skip");

  const refusedLines = withRefusal.report.errors.filter((e) => /refused by the test/.test(e.message));
  expect(refusedLines.map((e) => e.line)).toEqual(at);
  for (const e of refusedLines) expect(e.message).toMatch(/^this trace could not be stored: /);
  expect(withRefusal.report.errors.map((e) => e.line)).toEqual(withBadLines.report.errors.map((e) => e.line));
  expect(withRefusal.errors).toEqual(withBadLines.errors);

  expect(withRefusal.report.inserted).toBe(withBadLines.report.inserted);
  expect(withRefusal.report.duplicates).toBe(withBadLines.report.duplicates);
  expect(withRefusal.report.inserted).toBeGreaterThan(3 * 120);
  expect(withRefusal.stored).toEqual(withBadLines.stored);
  expect(withRefusal.versions).toEqual(withBadLines.versions);
  expect(withRefusal.versions.map((r) => r.model)).not.toContain("gpt-lonely");
  expect(withRefusal.stored.tools.length).toBeGreaterThan(0);
});

it("stores a file of several batches as it is, counting each trace once", async () => {
  const { report, stored } = await ingestWith([], "refuse");
  const lines = 3 * 126;
  expect(report.lines).toBe(lines);
  expect(report.inserted + report.duplicates).toBeGreaterThan(2 * SAVEPOINT_BATCH);
  expect(stored.traces).toHaveLength(report.inserted);
  const calls = stored.tools.reduce((n, r) => n + Number(r.calls), 0);
  const toolSteps = stored.steps.filter((s) => s.type === "tool_call").length;
  expect(calls).toBe(toolSteps);
});

it("ends a batch early when its traces' text passes the bound, so large traces are not held 128 at a time", async () => {
  const big = (n: number, chars: number) =>
    JSON.stringify({
      run: { name: "large results", system: "No Directives", model: "gpt-test" },
      question: { id: `big-${n}` },
      steps: [
        { type: "tool_call", tool: "read_query", args: { query: "SELECT 1" }, result: `${n}`.padEnd(chars, "r") },
      ],
      outcome: { correct: true },
    });
  // What the sink has heard (progress.traces) as each line is read: it hears a batch's traces when the batch ends.
  const heard = async (chars: number) => {
    const t = store();
    const seen: number[] = [];
    const lines = [0, 1, 2, 3].map((n) => big(n, chars)).join("\n") + "\n";
    const report = await ingestStream(t.sql, chunksOf(lines, 1 << 20), {
      progressEvery: 1,
      onProgress: (p) => seen.push(p.traces),
    });
    expect(report.inserted).toBe(4);
    return seen.slice(0, -1); // the last call comes after the upload's end
  };
  // Small traces: one batch, heard only at the end.
  expect(Math.max(...(await heard(1000)))).toBe(0);
  // Traces of over half the bound each: a batch ends at every second trace, before the file's end.
  expect(Math.max(...(await heard(BATCH_TEXT_CHARS / 2 + 1)))).toBeGreaterThanOrEqual(2);
});

it("writes a blob again after the savepoint that wrote it was rolled back, so no step names a blob the store lacks", async () => {
  const t = store();
  t.db.$client.exec(
    "CREATE TRIGGER refuse_step BEFORE INSERT ON steps WHEN NEW.tool = 'refused_tool' " +
      "BEGIN SELECT RAISE(ABORT, 'refused by the test'); END",
  );
  const schema = "column_a INTEGER PRIMARY KEY -- a described column\n".repeat(60); // a blob (over 2,048 characters)
  const trace = (id: string, refused: boolean) =>
    JSON.stringify({
      run: { name: "blobs", system: "No Directives", model: "gpt-test" },
      question: { id },
      steps: [
        { type: "tool_call", tool: "describe_table", args: { table_name: "a" }, result: schema },
        ...(refused ? [{ type: "tool_call", tool: "refused_tool", args: {}, result: "x" }] : []),
      ],
      outcome: { correct: true },
    });
  // The first writes the blob in the batch the second's refusal rolls back; the second writes it in a savepoint of
  // its own that is rolled back; the third comes after both.
  const lines = [trace("1", false), trace("2", true), trace("3", false)].join("\n") + "\n";
  const report = await ingestStream(t.sql, chunksOf(lines, 1 << 14), {});
  expect(report.inserted).toBe(2);
  expect(report.errors.map((e) => e.line)).toEqual([2]);
  const dangling = await many<{ n: number }>(
    t.sql,
    raw`SELECT count(*) AS n FROM steps s WHERE s.result_blob IS NOT NULL
          AND NOT EXISTS (SELECT 1 FROM blobs b WHERE b.hash = s.result_blob)`,
  );
  const named = await many<{ n: number }>(t.sql, raw`SELECT count(*) AS n FROM steps WHERE result_blob IS NOT NULL`);
  expect(Number(named[0].n)).toBe(2);
  expect(Number(dangling[0].n)).toBe(0);
});

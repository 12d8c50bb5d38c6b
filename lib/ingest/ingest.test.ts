import { afterEach, describe, expect, it } from "vitest";
import { asSql, type Sql } from "@/lib/db/sql";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { ENGINES, engineStore, type Engine } from "@/lib/testing/engines";
import { jsonl, makeTraceLine } from "@/lib/testing/factories";
import { ingestStream, runIngest } from "./ingest";
import { many, one, raw } from "@/lib/db/typed";

const ingestStreamUnqueued = (sqlite: Parameters<typeof runIngest>[0], text: string) =>
  runIngest(sqlite, chunksOf(text, 1 << 12), {});

let cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups) await c();
  cleanups = [];
});

/** A new store of the engine (SQLite, and PostgreSQL when the tests have a server). */
async function storeOf(engine: Engine): Promise<Sql> {
  const t = await engineStore(engine);
  cleanups.push(t.cleanup);
  return t.sql;
}

const count = async (sql: Sql, table: string) =>
  Number((await one<{ n: number }>(sql, raw`SELECT count(*) AS n FROM ${raw.id(table)}`))!.n);

/** A file with every kind of bad line between valid ones; valid traces are on lines 1, 3, 5, 9 and 11. */
function messyFile(): Buffer {
  const good = () => JSON.stringify(makeTraceLine());
  const parts: (string | Buffer)[] = [
    "\uFEFF" + good() + "\r\n", // 1: BOM + CRLF, valid
    "{not json\r\n", // 2: invalid JSON
    good() + "\r\n", // 3: valid
    JSON.stringify(makeTraceLine({ sample: "two" as never })) + "\n", // 4: wrong type
    good() + "\n", // 5: valid
    "\n", // 6: empty, skipped
    Buffer.concat([Buffer.from('{"question":{"id":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}}\n')]), // 7: invalid UTF-8
    JSON.stringify(makeTraceLine({ meta: { pad: "x".repeat(5000) } })) + "\n", // 8: oversized
    good() + "\n", // 9: valid
    "[1,2]\n", // 10: not an object
    good(), // 11: valid, no final newline
  ];
  return Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : p)));
}

describe.each(ENGINES)("ingestStream (%s store)", (engine) => {
  it("reports one error per bad line with its number and stores every valid trace", async () => {
    const sqlite = await storeOf(engine);
    const report = await ingestStream(sqlite, chunksOf(messyFile(), 64), { maxLineBytes: 4096 });
    expect(report.errors.map((e) => e.line)).toEqual([2, 4, 7, 8, 10]);
    expect(report.errors[0].message).toMatch(/invalid JSON/);
    expect(report.errors[1].message).toMatch(/^sample:/);
    expect(report.errors[2].message).toBe("invalid UTF-8");
    expect(report.errors[3].message).toMatch(/over the limit of 4096 bytes/);
    expect(report.errors[4].message).toMatch(/JSON object/);
    expect(report.inserted).toBe(5);
    expect(report.lines).toBe(11);
    expect(await count(sqlite, "traces")).toBe(5);
    expect(await count(sqlite, "steps")).toBe(15);
    expect(await count(sqlite, "upload_errors")).toBe(5);
    expect(report.runs).toHaveLength(1);
  });

  it("stores each trace once when the same file is ingested twice", async () => {
    const sqlite = await storeOf(engine);
    const file = jsonl(makeTraceLine(), makeTraceLine(), makeTraceLine());
    const first = await ingestStream(sqlite, chunksOf(file));
    const second = await ingestStream(sqlite, chunksOf(file));
    expect([first.inserted, first.duplicates]).toEqual([3, 0]);
    expect([second.inserted, second.duplicates]).toEqual([0, 3]);
    expect(await count(sqlite, "traces")).toBe(3);
    expect(await count(sqlite, "steps")).toBe(9);
    expect(second.runs[0].id).toBe(first.runs[0].id);
  });

  it("a failure in the middle of persisting leaves nothing of that upload", async () => {
    const sqlite = await storeOf(engine);
    await ingestStream(sqlite, chunksOf(jsonl(makeTraceLine())));
    const lines = Array.from({ length: 50 }, () => makeTraceLine());
    const failing = ingestStream(sqlite, chunksOf(jsonl(...lines)), {
      progressEvery: 10,
      onProgress: (p) => {
        if (p.traces >= 20) throw new Error("injected failure");
      },
    });
    await expect(failing).rejects.toThrow("injected failure");
    expect(await count(sqlite, "traces")).toBe(1);
    expect(await count(sqlite, "steps")).toBe(3);
    expect(await count(sqlite, "uploads")).toBe(1);
    // The store is usable after the rollback.
    const after = await ingestStream(sqlite, chunksOf(jsonl(makeTraceLine())));
    expect(after.inserted).toBe(1);
  });

  it("stores large results once, outside the steps table", async () => {
    const sqlite = await storeOf(engine);
    const big = "col TEXT\n".repeat(500);
    const line = (id: string) =>
      makeTraceLine({
        question: { id },
        steps: [{ type: "tool_call", tool: "describe_table", args: { table_name: "t" }, result: big }],
      });
    await ingestStream(sqlite, chunksOf(jsonl(line("1"), line("2"))));
    expect(await count(sqlite, "blobs")).toBe(1);
    const rows = (await many(sqlite, raw`SELECT result, result_blob, result_size FROM steps`)) as {
      result: string | null;
      result_blob: string;
      result_size: number;
    }[];
    expect(rows.every((r) => r.result === null && r.result_blob && r.result_size > 4000)).toBe(true);
  });

  it("assembles event lines mixed with whole traces in one file", async () => {
    const sqlite = await storeOf(engine);
    const file = jsonl(
      {
        kind: "trace",
        trace_id: "t1",
        run: { name: "live", system: "Sophrosyne", model: "m" },
        question: { id: "7", db_id: "pets_1" },
      },
      makeTraceLine(),
      { kind: "step", trace_id: "t1", seq: 0, type: "tool_call", tool: "list_tables", result: "pets" },
      {
        kind: "step",
        trace_id: "t1",
        seq: 1,
        type: "tool_call",
        tool: "submit_final_query",
        args: { query: "SELECT 1" },
      },
      { kind: "step", trace_id: "orphan", seq: 0, type: "message" },
    );
    const report = await ingestStream(sqlite, chunksOf(file));
    expect(report.inserted).toBe(2);
    expect(report.errors).toEqual([{ line: 5, message: expect.stringContaining("orphan") }]);
    const t = await one(sqlite, raw`SELECT final_sql, step_count FROM traces WHERE question_id = '7'`);
    expect(t).toEqual({ final_sql: "SELECT 1", step_count: 2 });
  });
});

describe.each(ENGINES)("a bad line is a bad line (%s store)", (engine) => {
  it("a trace nested 5,000 deep fails alone, with its line number, and the file goes on", async () => {
    const sqlite = await storeOf(engine);
    // Written as text: JSON.stringify itself cannot build it.
    const deep = `${'{"d":'.repeat(5000)}"bottom"${"}".repeat(5000)}`;
    const withDeep = (path: "meta" | "args") => {
      const line = JSON.stringify(
        path === "meta"
          ? makeTraceLine({ meta: { deep: "@@" } })
          : makeTraceLine({ steps: [{ type: "tool_call", tool: "read_query", args: { nested: "@@" } }] }),
      );
      return line.replace('"@@"', deep);
    };
    const lines = [makeTraceLine(), withDeep("meta"), makeTraceLine(), withDeep("args"), makeTraceLine()];
    const report = await ingestStream(sqlite, chunksOf(jsonl(...lines), 4096));
    expect(report.inserted).toBe(3);
    expect(report.errors.map((e) => e.line)).toEqual([2, 4]);
    expect(report.errors[0].message).toMatch(/nests too deeply|could not be stored/);
    expect(await count(sqlite, "traces")).toBe(3);
    expect(await count(sqlite, "steps")).toBe(9);
  });
});

describe("two writers on the SQLite file", () => {
  it("two CLI-like connections ingesting at once both succeed: the second waits for the lock", async () => {
    const t = tempDb();
    cleanups.push(t.cleanup);
    const { openConnection } = await import("@/lib/db/client");
    const a = openConnection(t.file);
    const b = openConnection(t.file);
    try {
      const many = (n: number) => jsonl(...Array.from({ length: n }, () => makeTraceLine()));
      // The module's in-process queue would serialise these; two connections in one process race like two processes.
      const [ra, rb] = await Promise.all([
        ingestStreamUnqueued(asSql(a), many(300)),
        ingestStreamUnqueued(asSql(b), many(300)),
      ]);
      expect(ra.inserted + rb.inserted).toBe(600);
      expect((a.prepare("SELECT count(*) AS n FROM traces").get() as { n: number }).n).toBe(600);
    } finally {
      a.close();
      b.close();
    }
  });
});

describe.each(ENGINES)("empty input (%s store)", (engine) => {
  it("is refused and stores no upload", async () => {
    const sqlite = await storeOf(engine);
    await expect(ingestStream(sqlite, chunksOf(""))).rejects.toThrow("the file is empty");
    expect(await count(sqlite, "uploads")).toBe(0);
  });
});

// The upload review counts what will be stored (issue 30: 3 valid traces and 6 bad lines were announced as
// "7 traces of 2 runs", and a dataset was asked for only because an invalid line named another run).
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { useEngineStore } from "@/lib/testing/engines";
import { jsonl } from "@/lib/testing/factories";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { ingestStream } from "./ingest";
import { chunksOf } from "@/lib/testing/db";
import { previewFile } from "./preview";
import { readFileSync } from "node:fs";

describe("upload preview", () => {
  const store = useEngineStore("SQLite", async () => {
    await importSpiderDe(store);
  });
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-preview-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("counts only the lines that will be stored, names the invalid ones, and asks only what the valid ones lack", async () => {
    const run = { name: "r", system: "s", model: "m", benchmark: "spider-de" };
    const good = (id: string) => ({ run, question: { id }, final_sql: "SELECT count(*) FROM sänger", steps: [] });
    const file = path.join(dir, "mixed.jsonl");
    writeFileSync(
      file,
      jsonl(
        good("0"),
        "{not json",
        good("1"),
        { run: { name: "other", system: "s", model: "m", benchmark: "nowhere" }, question: {} }, // no question id
        { run, question: { id: "2" }, steps: [{ type: "tool_call", tool: 7 }] },
        "[1, 2]",
        good("3"),
        { run, question: { id: "4" }, final_sql: 5 },
        "",
        '"a string"',
      ),
    );
    const p = await previewFile(store.sql, file);
    expect(p.runs).toEqual([{ name: "r", system: "s", model: "m", benchmark: "spider-de", traces: 3 }]);
    expect(p.invalidLines).toBe(6);
    expect(p.lineErrors.map((e) => e.line)).toEqual([2, 4, 5, 6, 8]);
    expect(p.lineErrors[0].error).toMatch(/invalid JSON/);
    expect(p.unknown).toEqual([]); // the invalid line's run "nowhere" asks for no dataset
    // What ingest then stores agrees with the review.
    const report = await ingestStream(store.sql, chunksOf(readFileSync(file, "utf8")));
    expect(report.inserted).toBe(3);
    expect(report.errors).toHaveLength(6);
  });
});

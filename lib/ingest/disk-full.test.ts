/**
 * All-or-nothing under a full disk (issue 28), on a real full file system: a tmpfs of a few megabytes, mounted here
 * when the tests run as root (as CI does); elsewhere the test says it cannot mount one and does not run.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDb, type Db } from "@/lib/db/client";
import { asSql, sqliteSql } from "@/lib/db/sql";
import { chunksOf } from "@/lib/testing/db";
import { realisticLines } from "@/lib/testing/realistic-traces";
import { ingestStream } from "./ingest";
import { StoreFaultError } from "./store-fault";
import { one, raw } from "@/lib/db/typed";

const root = process.getuid?.() === 0;
if (!root) console.log("disk-full.test.ts: not root, so no tmpfs can be mounted: the full-disk test does not run");

/** Spider-de's realistic traces, each with a large result of its own (not stored once by hash), about 12 MB. */
function bigLines(): string {
  return realisticLines()
    .split("\n")
    .filter(Boolean)
    .map((line, i) => {
      let t: { steps?: { result?: unknown }[] };
      try {
        t = JSON.parse(line) as typeof t;
      } catch {
        return line; // the file's bad lines stay as they are
      }
      if (!Array.isArray(t.steps) || typeof t.steps[0] !== "object" || !t.steps[0]) return line;
      t.steps[0].result = `${i}:`.padEnd(100_000, String.fromCharCode(97 + (i % 26)));
      return JSON.stringify(t);
    })
    .join("\n");
}

describe.runIf(root)("an upload that fills the disk", () => {
  let dir: string;
  let db: Db;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), "metron-full-"));
    execFileSync("mount", ["-t", "tmpfs", "-o", "size=6m", "tmpfs", dir]);
    db = openDb(path.join(dir, "store.db"));
  });
  afterAll(() => {
    db?.$client.close();
    execFileSync("umount", [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  it("is refused whole with 'the disk is full', leaves no row behind, and a later upload is not taken for duplicates", async () => {
    const sql = sqliteSql(db.$client);
    const count = async (table: string) =>
      Number((await one<{ n: number }>(sql, raw`SELECT count(*) AS n FROM ${raw.id(table)}`))!.n);
    const error = await ingestStream(asSql(db.$client), chunksOf(bigLines(), 64 * 1024), { source: "cli" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(StoreFaultError);
    expect((error as Error).message).toMatch(/^the disk is full \(SQLITE_FULL.*nothing of the upload was stored/);
    for (const table of ["runs", "traces", "steps", "blobs", "uploads", "upload_errors", "run_tool_counts"])
      expect(await count(table), table).toBe(0);
    // A small upload afterwards: stored whole, nothing counted as a duplicate of the failed one.
    const small = realisticLines().split("\n").slice(0, 5).join("\n");
    expect(small.split("\n").every((l) => JSON.parse(l))).toBe(true);
    const report = await ingestStream(asSql(db.$client), chunksOf(small, 4096), { source: "cli" });
    expect(report).toMatchObject({ inserted: 5, duplicates: 0, error_count: 0 });
    expect(await count("traces")).toBe(5);
  });
});

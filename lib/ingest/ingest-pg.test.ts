/**
 * Ingest on PostgreSQL (METRON_TEST_DATABASE_URL; `npm test` starts a private server): the same real files leave the
 * same rows as on SQLite, one transaction per upload, duplicates by content hash even when two uploads race, and a
 * trace the server refuses fails alone, named by its line.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { exportStore, importStore } from "@/lib/db/transfer";
import { postgresSql } from "@/lib/db/sql";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { jsonl } from "@/lib/testing/factories";
import { tempPostgres, testPostgresUrl } from "@/lib/testing/postgres";
import { omit, realisticLines, storedRows } from "@/lib/testing/realistic-traces";
import { sharedData } from "@/lib/testing/shared-data";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { ingestStream, runIngest } from "./ingest";
import { ingestFile } from "./ingest-file";
import { many, one, raw } from "@/lib/db/typed";

describe.runIf(testPostgresUrl)("ingest on PostgreSQL", () => {
  const lite = tempDb();
  let pg: Awaited<ReturnType<typeof tempPostgres>>;
  let file: string;
  beforeAll(async () => {
    await importSpiderDe(lite);
    pg = await tempPostgres();
    // The same dataset on both sides: moved with metron export / import.
    const dir = path.join(lite.dir, "datasets");
    await exportStore(lite.sql, dir);
    await importStore(pg.sql, dir);
    file = path.join(lite.dir, "traces.jsonl");
    writeFileSync(file, realisticLines());
  }, 120_000);
  afterAll(async () => {
    lite.cleanup();
    await pg?.cleanup();
  });

  it("stores what the SQLite store stores from the same real file: traces, metrics, steps, blobs, errors", async () => {
    const a = await ingestFile(lite.sql, file);
    const b = await ingestFile(pg.sql, file);
    expect(omit(b, "upload_id", "read_in_worker", "worker_threads")).toEqual(
      omit(a, "upload_id", "read_in_worker", "worker_threads"),
    );
    expect([b.inserted, b.duplicates, b.error_count]).toEqual([121, 1, 2]);
    const rows = await storedRows(pg.sql);
    expect(rows).toEqual(await storedRows(lite.sql));
    expect(rows.traces.filter((t) => t.gold_count !== null).length).toBeGreaterThan(90); // measured against Spider-de
    const real = sharedData("traces", "livesqlbench-adk", "single_turn_samples.json");
    const defaults = { name: "livesql", system: "ADK agent", model: "unknown" };
    const fa = await ingestFile(lite.sql, real, { defaults });
    const fb = await ingestFile(pg.sql, real, { defaults });
    expect(omit(fb, "upload_id", "read_in_worker", "worker_threads")).toEqual(
      omit(fa, "upload_id", "read_in_worker", "worker_threads"),
    );
    expect(await storedRows(pg.sql)).toEqual(await storedRows(lite.sql));
  });

  it("counts a file uploaded twice at once as stored once (the primary key decides, not a read)", async () => {
    const other = await postgresSql(pg.url);
    try {
      const lines = realisticLines()
        .replaceAll("gpt-test", "gpt-race")
        .replace('"name":"events"', '"name":"events-race"');
      const [x, y] = await Promise.all([
        runIngest(pg.sql, chunksOf(lines, 4096), {}),
        runIngest(other, chunksOf(lines, 4096), {}),
      ]);
      expect([...x.errors, ...y.errors].map((e) => e.line)).toEqual([14, 25, 14, 25]);
      expect(x.inserted + y.inserted).toBe(121);
      expect(x.duplicates + y.duplicates).toBe(121 + 2);
      const n = await one(
        pg.sql,
        raw<{ n: number }>`SELECT count(*) AS n FROM traces WHERE upload_id IN (${x.upload_id}, ${y.upload_id})`,
      );
      expect(n?.n).toBe(121);
    } finally {
      await other.close();
    }
  });

  it("fails alone, by its line, a trace PostgreSQL cannot store, and keeps the others", async () => {
    const trace = (q: string, text: string) => ({
      run: { name: "nul run", system: "s", model: "m" },
      question: { id: q, text },
      steps: [{ type: "tool_call", tool: "list_tables", result: "t" }],
      outcome: { correct: true },
    });
    const report = await ingestStream(
      pg.sql,
      chunksOf(jsonl(trace("1", "ok"), trace("2", "a\u0000b"), trace("3", "ok"))),
    );
    expect(report.inserted).toBe(2);
    expect(report.errors).toHaveLength(1);
    expect(report.errors[0]).toMatchObject({ line: 2, message: expect.stringMatching(/could not be stored/) });
    const errors = await many(
      pg.sql,
      raw<Record<string, unknown>>`SELECT line FROM upload_errors WHERE upload_id = ${report.upload_id}`,
    );
    expect(errors).toEqual([{ line: 2 }]);
  });

  it("keeps nothing of an upload stopped mid-way", async () => {
    const before = await storedRows(pg.sql);
    let batches = 0;
    await expect(
      ingestStream(pg.sql, chunksOf(realisticLines().replaceAll("gpt-test", "gpt-stopped"), 4096), {
        progressEvery: 10,
        onProgress: () => {
          if (++batches === 8) throw new Error("stopped by the user");
        },
      }),
    ).rejects.toThrow("stopped by the user");
    expect(await storedRows(pg.sql)).toEqual(before);
  });
});

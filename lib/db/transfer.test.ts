import { asSql } from "@/lib/db/sql";
import Database from "better-sqlite3";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo } from "@/lib/demo/seed";
import { loadOverview } from "@/lib/db/queries/overview";
import { setLabel, setNote } from "@/lib/labels/labels";
import { csvResponse } from "@/lib/metrics/csv";
import { overviewTable } from "@/lib/metrics/exports";
import { ingestFile } from "@/lib/ingest/ingest-file";
import { tempDb } from "@/lib/testing/db";
import { tempPostgres, testPostgresUrl } from "@/lib/testing/postgres";
import { sharedData } from "@/lib/testing/shared-data";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { decodeCell, encodeCell, exportStore, importStore, TransferError } from "./transfer";
import type { Db } from "./client";
import type { Sql } from "./sql";
import { one, raw, write } from "@/lib/db/typed";

const source = tempDb();
const target = tempDb();
const spare = tempDb();
afterAll(() => [source, target, spare].forEach((s) => s.cleanup()));

const experimentsCsv = async (sql: Sql) => {
  const { columns, rows } = overviewTable((await loadOverview(sql, {})).groups);
  return csvResponse("o.csv", columns, rows).text();
};

/** Every row of every table but the derived ones (the search index, the runs' totals, the derived cache), in a stable order. */
function contents(db: Db) {
  const sqlite = db.$client;
  const tables = (
    sqlite
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as { name: string }[]
  )
    .map((t) => t.name)
    .filter((n) => !/^(__drizzle|search_|run_totals$|derived_cache$)/.test(n));
  return Object.fromEntries(
    tables.map((t) => [
      t,
      sqlite
        .prepare(`SELECT * FROM "${t}"`)
        .all()
        .map((r) => JSON.stringify(r, (_k, v) => (typeof v === "bigint" ? `${v}n` : v)))
        .sort(),
    ]),
  );
}

describe("metron export / import", () => {
  let dir: string;
  beforeAll(async () => {
    await seedDemo(asSql(source.db.$client), { dir: path.join(source.dir, "demo") });
    // Real data beside the demo: Spider-de (its databases referenced where they lie) and a real foreign trace file.
    await importSpiderDe(source);
    const sqlite = source.db.$client;
    const real = await ingestFile(asSql(sqlite), sharedData("traces", "livesqlbench-adk", "single_turn_samples.json"), {
      defaults: { name: "livesql", system: "ADK agent", model: "unknown" },
    });
    expect(real.inserted).toBe(3);
    const trace = sqlite.prepare("SELECT id FROM traces ORDER BY id LIMIT 1").get() as { id: string };
    await setLabel(asSql(sqlite), trace.id, "wrong join", { on: true, who: "ana" });
    await setNote(asSql(sqlite), trace.id, "the join path skips the bridge table", { who: "ana", seq: 2 });
    // Values a naive copy would change: a REAL that is a whole number, an integer past 2^53.
    sqlite.prepare("UPDATE traces SET cost_usd = 3.0, input_tokens = 9007199254740993 WHERE id = ?").run(trace.id);
    dir = path.join(source.dir, "export");
    await exportStore(source.sql, dir);
  }, 120_000);

  it("moves the demo store whole: every table's rows and the Experiments CSV are the same on both sides", async () => {
    const report = await importStore(target.sql, dir);
    expect(report.tables.find((t) => t.name === "traces")!.rows).toBeGreaterThan(200);
    expect(report.missing_database_files).toEqual([]); // Spider-de's files, referenced in ../shared, are found
    expect(report.tables.find((t) => t.name === "questions")!.rows).toBeGreaterThan(1030);
    const before = contents(source.db);
    const after = contents(target.db);
    // Importing bumps each run's version (its derived data is computed again): compare runs without it.
    const noVersion = (rows: string[]) => rows.map((r) => JSON.stringify({ ...JSON.parse(r), version: 0 }));
    expect(noVersion(after.runs)).toEqual(noVersion(before.runs));
    expect({ ...after, runs: [] }).toEqual({ ...before, runs: [] });
    expect(await experimentsCsv(target.sql)).toBe(await experimentsCsv(source.sql));
    const typed = target.db.$client
      .prepare(
        "SELECT typeof(cost_usd) AS t, cost_usd AS c, CAST(input_tokens AS TEXT) AS n FROM traces WHERE cost_usd = 3",
      )
      .get();
    expect(typed).toEqual({ t: "real", c: 3, n: "9007199254740993" });
  });

  it("refuses a store that already holds data, and keeps nothing of an export whose file was altered", async () => {
    await expect(importStore(target.sql, dir)).rejects.toThrow(/already holds \d+ rows in \w+/);
    const altered = path.join(spare.dir, "altered");
    cpSync(dir, altered, { recursive: true });
    const file = path.join(altered, "traces.jsonl");
    writeFileSync(file, readFileSync(file, "utf8").replace(`"submitted"`, `"no_submission"`));
    await expect(importStore(spare.sql, altered)).rejects.toThrow(/traces.jsonl: its SHA-256 does not match/);
    expect(spare.db.$client.prepare("SELECT count(*) AS n FROM runs").get()).toEqual({ n: 0 });
    await expect(exportStore(source.sql, dir)).rejects.toThrow(TransferError); // not into a used folder
  });

  it("names the benchmark database files the store refers to that are not on this machine", async () => {
    const moved = tempDb();
    try {
      const copy = path.join(moved.dir, "export");
      cpSync(dir, copy, { recursive: true });
      const manifestFile = path.join(copy, "manifest.json");
      const manifest = JSON.parse(readFileSync(manifestFile, "utf8"));
      manifest.database_files.push("/nowhere/concert_singer.sqlite");
      writeFileSync(manifestFile, JSON.stringify(manifest));
      const report = await importStore(moved.sql, copy);
      expect(report.missing_database_files).toEqual(["/nowhere/concert_singer.sqlite"]);
    } finally {
      moved.cleanup();
    }
  });

  it("metron backup copies the store through SQLite's online backup, refusing to overwrite a file", async () => {
    const { runTransferCommand } = await import("@/lib/cli/transfer");
    const saved = process.env.DATABASE_PATH;
    process.env.DATABASE_PATH = source.file;
    const file = path.join(spare.dir, "backup.db");
    try {
      expect(await runTransferCommand("backup", [file])).toBe(0);
      await expect(runTransferCommand("backup", [file])).rejects.toThrow(/exists/);
    } finally {
      process.env.DATABASE_PATH = saved;
    }
    const copy = new Database(file, { readonly: true });
    expect(copy.pragma("integrity_check", { simple: true })).toBe("ok");
    const count = (db: Database.Database) => db.prepare("SELECT count(*) AS n FROM steps").get();
    expect(count(copy)).toEqual(count(source.db.$client));
    copy.close();
  });

  it("writes every SQLite value so that it reads back the same", () => {
    const where = () => "test";
    const cells = [null, "text", 0n, -5n, 2n ** 62n, 1.5, 3, -0.25, Infinity, Buffer.from([0, 255, 7])];
    for (const c of cells) {
      const back = decodeCell(JSON.parse(JSON.stringify(encodeCell(c))), where);
      if (c instanceof Uint8Array) expect(Buffer.compare(back as Buffer, c)).toBe(0);
      else expect(back).toEqual(typeof c === "bigint" ? c : c);
    }
    expect(typeof decodeCell(encodeCell(3), where)).toBe("number"); // a whole REAL stays REAL
    expect(typeof decodeCell(encodeCell(3n), where)).toBe("bigint");
    expect(() => decodeCell({ evil: 1 }, where)).toThrow(/a value Metron did not write/);
  });
});

// The same moves between engines, on a real PostgreSQL server (METRON_TEST_DATABASE_URL; `.ci/run` starts one).
describe.runIf(testPostgresUrl)("metron export / import between SQLite and PostgreSQL", () => {
  let pg: Awaited<ReturnType<typeof tempPostgres>>;
  let sourceDir: string;
  beforeAll(async () => {
    pg = await tempPostgres();
    sourceDir = path.join(source.dir, "export-for-pg");
    await exportStore(source.sql, sourceDir);
  }, 120_000);
  afterAll(async () => pg?.cleanup());

  it("a SQLite export read into PostgreSQL gives every row and the same Experiments CSV", async () => {
    const report = await importStore(pg.sql, sourceDir);
    for (const t of report.tables) {
      const n = Number((await one<{ n: number }>(pg.sql, raw`SELECT count(*) AS n FROM ${raw.id(t.name)}`))!.n);
      expect({ table: t.name, n }).toEqual({ table: t.name, n: t.rows });
    }
    expect(report.tables.find((t) => t.name === "traces")!.rows).toBeGreaterThan(200);
    const csv = await experimentsCsv(source.sql);
    expect(csv.split("\n").length).toBeGreaterThan(6);
    expect(await experimentsCsv(pg.sql)).toBe(csv);
    const typed = await one(
      pg.sql,
      raw<Record<string, unknown>>`SELECT cost_usd AS c, input_tokens::text AS n FROM traces WHERE cost_usd = 3`,
    );
    expect(typed).toEqual({ c: 3, n: "9007199254740993" });
    // An identity column continues after the imported ids.
    const max = (await one(pg.sql, raw<{ m: number | null }>`SELECT max(id) AS m FROM run_changes`))!.m ?? 0;
    await write(pg.sql, raw`INSERT INTO run_changes (run_id, who, change) VALUES ('r', 'test', 'x')`);
    expect((await one(pg.sql, raw<{ m: number }>`SELECT max(id) AS m FROM run_changes`))!.m).toBe(max + 1);
    await write(pg.sql, raw`DELETE FROM run_changes WHERE who = 'test'`);
  });

  it("exported again from PostgreSQL into a new SQLite store, every row is what it was", async () => {
    const back = tempDb();
    try {
      const pgDir = path.join(spare.dir, "export-from-pg");
      const manifest = await exportStore(pg.sql, pgDir);
      expect(manifest.engine).toBe("postgres");
      await importStore(back.sql, pgDir);
      const before = contents(source.db);
      const after = contents(back.db);
      const noVersion = (rows: string[]) => rows.map((r) => JSON.stringify({ ...JSON.parse(r), version: 0 }));
      expect(noVersion(after.runs)).toEqual(noVersion(before.runs));
      expect({ ...after, runs: [] }).toEqual({ ...before, runs: [] });
      expect(await experimentsCsv(back.sql)).toBe(await experimentsCsv(source.sql));
    } finally {
      back.cleanup();
    }
  });

  it("keeps nothing of an altered export on PostgreSQL either", async () => {
    const other = await tempPostgres();
    try {
      const altered = path.join(spare.dir, "altered-for-pg");
      cpSync(sourceDir, altered, { recursive: true });
      const file = path.join(altered, "steps.jsonl");
      writeFileSync(file, readFileSync(file, "utf8") + "[]\n");
      await expect(importStore(other.sql, altered)).rejects.toThrow(/steps.jsonl line \d+: expected \d+ values/);
      expect(await one(other.sql, raw<Record<string, unknown>>`SELECT count(*) AS n FROM runs`)).toEqual({ n: 0 });
      expect(await one(other.sql, raw<Record<string, unknown>>`SELECT count(*) AS n FROM traces`)).toEqual({ n: 0 });
    } finally {
      await other.cleanup();
    }
  });
});

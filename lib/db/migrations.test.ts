/**
 * Hand-written migrations keep what a store holds: the queue's table renamed from `rerun_jobs` to `jobs` (migration
 * 0015 on SQLite, 0005 on PostgreSQL) carries its rows and indexes across, on a store migrated to the version before.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openConnection } from "./client";
import { migratePostgres } from "./store";
import { asSql, postgresSql } from "./sql";
import { many, raw } from "./typed";
import { foldersBefore } from "@/lib/testing/migrations";
import { testPostgresUrl } from "@/lib/testing/postgres";
import { randomBytes } from "node:crypto";

const job = (id: string) =>
  raw`INSERT INTO rerun_jobs (id, client, provider, model, variant, state, sweep_id, question_id, sample)
      VALUES (${id}, 'local', 'simulated', 'sim-careful', 'none', 'queued', 'sweep-1', 'q1', 0)`;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
  delete process.env.METRON_MIGRATIONS;
  delete process.env.METRON_MIGRATIONS_PG;
});

describe("the queue's table renamed to jobs", () => {
  it("on SQLite: the rows of rerun_jobs are in jobs, with its indexes renamed", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "metron-store-"));
    const before = foldersBefore(path.resolve("drizzle"), "0015_jobs");
    cleanups.push(
      () => rmSync(dir, { recursive: true, force: true }),
      () => rmSync(before, { recursive: true }),
    );
    const file = path.join(dir, "store.db");
    const { drizzle } = await import("drizzle-orm/better-sqlite3");
    const { migrate } = await import("drizzle-orm/better-sqlite3/migrator");
    const conn = openConnection(file);
    migrate(drizzle(conn), { migrationsFolder: before });
    const sql = asSql(conn);
    await many(sql, job("a"));
    await many(sql, job("b"));
    migrate(drizzle(conn), { migrationsFolder: path.resolve("drizzle") });
    expect(await many(sql, raw<{ id: string }>`SELECT id FROM jobs ORDER BY id`)).toEqual([{ id: "a" }, { id: "b" }]);
    const objects = await many(
      sql,
      raw<{
        name: string;
      }>`SELECT name FROM sqlite_master WHERE name LIKE '%jobs%' AND name NOT LIKE 'sqlite_%' AND type IN ('table', 'index') ORDER BY name`,
    );
    expect(objects.map((o) => o.name)).toEqual(["jobs", "jobs_state", "jobs_sweep", "jobs_trace"]);
    conn.close();
  });

  it.runIf(testPostgresUrl)("on PostgreSQL: the rows of rerun_jobs are in jobs, with its indexes renamed", async () => {
    const pg = (await import("pg")).default;
    const name = `metron_mig_${randomBytes(5).toString("hex")}`;
    const admin = new pg.Client({ connectionString: testPostgresUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = Object.assign(new URL(testPostgresUrl!), { pathname: `/${name}` }).toString();
    const before = foldersBefore(path.resolve("drizzle-pg"), "0005_jobs");
    cleanups.push(async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
      rmSync(before, { recursive: true });
    });
    process.env.METRON_MIGRATIONS_PG = before;
    await migratePostgres(url);
    const sql = await postgresSql(url);
    try {
      await many(sql, job("a"));
      delete process.env.METRON_MIGRATIONS_PG;
      await migratePostgres(url);
      expect(await many(sql, raw<{ id: string }>`SELECT id FROM jobs ORDER BY id`)).toEqual([{ id: "a" }]);
      const indexes = await many(
        sql,
        raw<{ name: string }>`SELECT indexname AS name FROM pg_indexes WHERE tablename = 'jobs' ORDER BY indexname`,
      );
      expect(indexes.map((i) => i.name)).toEqual(["jobs_pkey", "jobs_state", "jobs_sweep", "jobs_trace"]);
    } finally {
      await sql.close();
    }
  });
});

describe("the migration journals", () => {
  it.each(["drizzle", "drizzle-pg"])(
    "%s: every migration file is in the journal, and their times increase (drizzle skips one older than the last applied)",
    (folder) => {
      const journal = JSON.parse(readFileSync(path.resolve(folder, "meta", "_journal.json"), "utf8")) as {
        entries: { idx: number; tag: string; when: number }[];
      };
      const tags = journal.entries.map((e) => e.tag);
      const files = readdirSync(path.resolve(folder))
        .filter((f) => f.endsWith(".sql"))
        .map((f) => f.replace(/\.sql$/, ""))
        .sort();
      expect(tags).toEqual(files);
      journal.entries.forEach((e, i) => {
        expect(e.idx).toBe(i);
        if (i > 0) expect(e.when, e.tag).toBeGreaterThan(journal.entries[i - 1].when);
      });
    },
  );
});

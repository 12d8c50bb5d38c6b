import Database from "better-sqlite3";
import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { sha256File } from "@/lib/datasets/inspect";
import { prepareLegacy } from "@/lib/sql/legacy-dqs";
import { sharedData } from "@/lib/testing/shared-data";
import { SqlSandbox } from "./sandbox";

const dbPath = sharedData("spider-de", "database", "concert_singer", "concert_singer.sqlite");
const sandbox = new SqlSandbox({ timeoutMs: 1500, maxRows: 1000, workers: 2 });
afterAll(() => sandbox.close());

describe("the SQL sandbox against adversarial SQL", () => {
  it("refuses writes, ATTACH, extension loading and PRAGMA writes; stops runaway queries; leaves the file unchanged", async () => {
    const before = await sha256File(dbPath);
    const refused = [
      "UPDATE sänger SET name = 'x'",
      "DELETE FROM sänger",
      "DROP TABLE sänger",
      "INSERT INTO sänger (name) VALUES ('x')",
      "CREATE TABLE evil (x)",
      "ATTACH DATABASE '/tmp/evil.db' AS evil",
      "/* hidden */ ATTACH '/tmp/evil.db' AS evil",
      "PRAGMA user_version = 7",
      "PRAGMA journal_mode = DELETE",
      "VACUUM INTO '/tmp/copy.db'",
      "; ATTACH '/tmp/evil.db' AS evil",
      ";;-- x\n VACUUM INTO '/tmp/copy.db'",
      "PRAGMA writable_schema = 1",
      "PRAGMA query_only = 0",
      'PRAGMA "main".query_only = 0',
      "PRAGMA locking_mode = EXCLUSIVE",
      "/* c */ PRAGMA main.journal_mode = OFF",
      "SELECT 1; DELETE FROM sänger",
      "SELECT 1; ATTACH '/tmp/evil.db' AS evil",
    ];
    for (const sql of refused) {
      const r = await sandbox.run(dbPath, sql);
      expect(r, sql).toMatchObject({ ok: false, kind: "refused" });
    }
    // Reading pragmas run, in every spelling SQLite accepts.
    for (const sql of [
      'PRAGMA "main".table_info(sänger)',
      "/* c */ ; pragma TABLE_INFO = 'sänger'",
      "PRAGMA index_list([konzert])",
      "PRAGMA foreign_key_list(sänger_im_konzert)",
    ]) {
      expect(await sandbox.run(dbPath, sql), sql).toMatchObject({ ok: true });
    }
    const ext = await sandbox.run(dbPath, "SELECT load_extension('/tmp/evil.so')");
    expect(ext).toMatchObject({ ok: false, kind: "error" });
    expect(!ext.ok && ext.error).toMatch(/not authorized|no such function/);

    const forever = await sandbox.run(
      dbPath,
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
    );
    expect(forever).toMatchObject({ ok: false, kind: "timeout" });
    const huge = await sandbox.run(
      dbPath,
      `SELECT count(*) FROM ${"abcdefghijklmn"
        .split("")
        .map((a) => `sänger ${a}`)
        .join(", ")}`,
    ); // 6^14 rows
    expect(huge).toMatchObject({ ok: false, kind: "timeout" });
    const capped = await sandbox.run(
      dbPath,
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c",
    );
    expect(capped).toMatchObject({ ok: true, truncated: true });
    expect(capped.ok && capped.rows.length).toBe(1000);
    // The sandbox still works after its workers were terminated.
    expect(await sandbox.run(dbPath, "SELECT count(*) FROM sänger")).toMatchObject({ ok: true, rows: [[6]] });
    expect(await sha256File(dbPath)).toBe(before);
  });

  it("bounds results in bytes and SQL in size, and a huge value fails in the worker, not in this process", async () => {
    const small = new SqlSandbox({
      maxResultBytes: 10_000,
      maxValueBytes: 5_000,
      maxSqlBytes: 2_000,
      memoryMb: 1024,
      timeoutMs: 20_000,
    });
    try {
      expect(await small.run(dbPath, "SELECT zeroblob(6000)")).toMatchObject({
        ok: false,
        kind: "limit",
        error: expect.stringMatching(/METRON_SQL_MAX_VALUE_BYTES/),
      });
      expect(
        await small.run(
          dbPath,
          "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100) SELECT zeroblob(1000) FROM c",
        ),
      ).toMatchObject({ ok: false, kind: "limit", error: expect.stringMatching(/METRON_SQL_MAX_RESULT_BYTES/) });
      expect(await small.run(dbPath, `SELECT 1 ${" ".repeat(3000)}`)).toMatchObject({
        ok: false,
        kind: "limit",
        error: expect.stringMatching(/METRON_SQL_MAX_SQL_BYTES/),
      });
      const rss = process.memoryUsage().rss;
      const huge = await small.run(
        dbPath,
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1001) SELECT zeroblob(5e8) FROM c",
      );
      expect(huge).toMatchObject({
        ok: false,
        kind: "limit",
        error: expect.stringMatching(/out of memory|METRON_SQL/),
      });
      expect(process.memoryUsage().rss - rss).toBeLessThan(200 * 1024 * 1024);
      expect(await small.run(dbPath, "SELECT count(*) FROM sänger")).toMatchObject({ ok: true, rows: [[6]] });
    } finally {
      await small.close();
    }
  });

  it("a query past its time limit really stops: its worker process is gone within 2 s of the limit", async () => {
    const quick = new SqlSandbox({ timeoutMs: 800, workers: 1 });
    try {
      const started = Date.now();
      const pending = quick.run(
        dbPath,
        "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c",
      );
      await new Promise((r) => setTimeout(r, 200));
      const [pid] = quick.pids();
      expect(pid).toBeGreaterThan(0);
      expect(await pending).toMatchObject({ ok: false, kind: "timeout" });
      const alive = () => {
        try {
          process.kill(pid, 0);
          return true;
        } catch {
          return false;
        }
      };
      while (alive() && Date.now() - started < 800 + 2000) await new Promise((r) => setTimeout(r, 50));
      expect(alive()).toBe(false);
    } finally {
      await quick.close();
    }
  });

  it("reads double-quoted strings as Python's sqlite3 does: 213 Spider-de gold queries need it", () => {
    const dev = JSON.parse(readFileSync(sharedData("spider-de", "dev.json"), "utf8")) as {
      db_id: string;
      query: string;
    }[];
    let plain = 0;
    let legacy = 0;
    const handles = new Map<string, Database.Database>();
    for (const q of dev) {
      let db = handles.get(q.db_id);
      if (!db)
        handles.set(
          q.db_id,
          (db = new Database(sharedData("spider-de", "database", q.db_id, `${q.db_id}.sqlite`), { readonly: true })),
        );
      try {
        db.prepare(q.query);
      } catch {
        plain++;
      }
      try {
        prepareLegacy(db, q.query);
      } catch {
        legacy++;
      }
    }
    handles.forEach((h) => h.close());
    expect(plain - legacy).toBe(213);
    expect(legacy).toBe(52);
  });
});

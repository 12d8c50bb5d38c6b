import Database from "better-sqlite3";
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeFileSync, writeSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it, vi } from "vitest";
import { runDoctorCommand } from "@/lib/cli/doctor";
import { checkStore, checkStoreAtStart, storeHealth } from "./health";

describe("the store's health (issue 28)", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-health-"));
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("names a file that is not a SQLite database, and what to do", async () => {
    process.env.DATABASE_PATH = path.join(dir, "not-sqlite.db");
    writeFileSync(process.env.DATABASE_PATH, "this is a text file, not a store ".repeat(200));
    const h = await checkStore();
    expect(h).toMatchObject({ ok: false, engine: "sqlite" });
    expect(h.problem).toMatch(/cannot be opened \(SQLITE_NOTADB/);
    expect(h.advice).toMatch(/metron backup/);
  });

  it("finds damaged pages with quick_check, where opening alone does not", async () => {
    const file = path.join(dir, "damaged.db");
    const db = new Database(file);
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT); CREATE INDEX t_text ON t (text);");
    const insert = db.prepare("INSERT INTO t (text) VALUES (?)");
    db.transaction(() => {
      for (let i = 0; i < 3000; i++) insert.run(`row ${i} `.repeat(20));
    })();
    db.close();
    const fd = openSync(file, "r+");
    writeSync(fd, Buffer.alloc(4096, 0x5a), 0, 4096, 4096 * 40); // a page in the middle of the table
    closeSync(fd);
    process.env.DATABASE_PATH = file;
    expect(await checkStore()).toMatchObject({ ok: true, pagesChecked: false });
    const h = await checkStore({ pages: true });
    expect(h).toMatchObject({ ok: false, pagesChecked: true });
    expect(h.problem).toMatch(/^the store's file is damaged: /);
    // metron doctor says so and exits 1.
    const out: string[] = [];
    const spy = vi.spyOn(console, "log").mockImplementation((s: string) => void out.push(s));
    try {
      expect(await runDoctorCommand([])).toBe(1);
    } finally {
      spy.mockRestore();
    }
    expect(out.join("\n")).toMatch(/damaged[\s\S]*what to do: stop writing to it/);
  });

  it("checks the pages a while after the start: until then pages report the cheap check, then what it found", async () => {
    process.env.DATABASE_PATH = path.join(dir, "damaged.db"); // the previous test's damaged store
    const g = globalThis as { metronPagesHealth?: unknown; metronHealth?: unknown };
    try {
      const started = performance.now();
      const atStart = checkStoreAtStart(400);
      expect(await storeHealth()).toMatchObject({ ok: true, pagesChecked: false }); // the delay is running
      await atStart;
      expect(performance.now() - started).toBeGreaterThanOrEqual(390);
      const h = await storeHealth();
      expect(h).toMatchObject({ ok: false, pagesChecked: true });
      expect(h.problem).toMatch(/^the store's file is damaged: /);
    } finally {
      delete g.metronPagesHealth;
      delete g.metronHealth;
    }
  });

  it("reads the pages off the server's thread: the check has not answered when the next timer fires", async () => {
    process.env.DATABASE_PATH = path.join(dir, "sound.db");
    const db = new Database(process.env.DATABASE_PATH);
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT)");
    db.close();
    let settled = false;
    const check = checkStore({ pages: true }).then((h) => ((settled = true), h));
    await new Promise((r) => setTimeout(r, 0)); // run on this thread, the check would have ended before this
    expect(settled).toBe(false);
    expect(await check).toMatchObject({ ok: true, pagesChecked: true });
  });

  it("reports a store whose check ended without an answer as usable and unchecked, not as damaged", async () => {
    process.env.DATABASE_PATH = path.join(dir, "sound-too.db");
    const db = new Database(process.env.DATABASE_PATH);
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY)");
    db.close();
    // A check process that is killed before it answers (as the kernel's OOM killer would).
    const root = path.join(dir, "root");
    mkdirSync(path.join(root, "lib", "db"), { recursive: true });
    writeFileSync(path.join(root, "lib", "db", "quick-check-worker.mjs"), 'process.kill(process.pid, "SIGKILL");\n');
    process.env.METRON_ROOT = root;
    const errors: string[] = [];
    const spy = vi.spyOn(console, "error").mockImplementation((s: string) => void errors.push(s));
    try {
      expect(await checkStore({ pages: true })).toMatchObject({ ok: true, pagesChecked: false });
    } finally {
      spy.mockRestore();
    }
    expect(errors.join("\n")).toMatch(/check of the store's pages stopped without an answer \(SIGKILL\)/);
  });

  it("names a PostgreSQL server out of reach", async () => {
    process.env.DATABASE_URL = "postgres://metron:secret@127.0.0.1:9/none";
    const h = await checkStore();
    expect(h).toMatchObject({ ok: false, engine: "postgres", where: "postgres://metron:***@127.0.0.1:9/none" });
    expect(h.problem).toMatch(/cannot be reached/);
  });

  it("is well for a sound store, and doctor exits 0", async () => {
    process.env.DATABASE_PATH = path.join(dir, "fine.db");
    new Database(process.env.DATABASE_PATH).exec("CREATE TABLE x (a)");
    const spy = vi.spyOn(console, "log").mockImplementation(() => undefined);
    try {
      expect(await runDoctorCommand([])).toBe(0);
    } finally {
      spy.mockRestore();
    }
  });
});

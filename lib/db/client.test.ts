/**
 * The pages' connection (getDb): it reads the store through a memory map (METRON_SQLITE_MMAP_MB, default 2,047 MB)
 * with a page cache of METRON_SQLITE_CACHE_MB (default 64), each set from the environment, a bad value refused by name.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { getDb, openConnection } from "./client";

const dir = mkdtempSync(path.join(os.tmpdir(), "metron-client-"));
const saved = { ...process.env };
const global = globalThis as unknown as { metronDb?: ReturnType<typeof getDb> };

function pagesConnection(env: Record<string, string>) {
  Object.assign(process.env, { DATABASE_PATH: path.join(dir, `store-${Math.random()}.db`) }, env);
  global.metronDb = undefined;
  const db = getDb();
  return {
    mmap: Number(db.$client.pragma("mmap_size", { simple: true })),
    cache: Number(db.$client.pragma("cache_size", { simple: true })),
  };
}

afterEach(() => {
  global.metronDb?.$client.close();
  global.metronDb = undefined;
  for (const k of ["DATABASE_PATH", "METRON_SQLITE_MMAP_MB", "METRON_SQLITE_CACHE_MB", "METRON_SQLITE_PAGE_KB"])
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it("maps up to 2,047 MB of the store and caches 64 MB of pages by default", () => {
  expect(pagesConnection({})).toEqual({ mmap: 2047 * 1024 * 1024, cache: -64 * 1024 });
});

it("takes both from the environment; a map of 0 reads without one", () => {
  expect(pagesConnection({ METRON_SQLITE_MMAP_MB: "0", METRON_SQLITE_CACHE_MB: "16" })).toEqual({
    mmap: 0,
    cache: -16 * 1024,
  });
});

it("refuses a value that is not a number, naming the variable", () => {
  expect(() => pagesConnection({ METRON_SQLITE_CACHE_MB: "lots" })).toThrow(/METRON_SQLITE_CACHE_MB/);
  expect(global.metronDb).toBeUndefined(); // no connection left behind without its settings
  delete process.env.METRON_SQLITE_CACHE_MB;
  expect(() => pagesConnection({ METRON_SQLITE_MMAP_MB: "-1" })).toThrow(/METRON_SQLITE_MMAP_MB/);
  expect(global.metronDb).toBeUndefined();
});

describe("the page size of a new store (METRON_SQLITE_PAGE_KB)", () => {
  function pageSize(file: string, kb?: string) {
    if (kb === undefined) delete process.env.METRON_SQLITE_PAGE_KB;
    else process.env.METRON_SQLITE_PAGE_KB = kb;
    const sqlite = openConnection(file);
    try {
      sqlite.exec("CREATE TABLE IF NOT EXISTS t (x)");
      return {
        pageSize: Number(sqlite.pragma("page_size", { simple: true })),
        journal: String(sqlite.pragma("journal_mode", { simple: true })),
      };
    } finally {
      sqlite.close();
    }
  }

  it("creates a store with 16 KB pages in WAL mode by default, and with the configured size", () => {
    expect(pageSize(path.join(dir, "default.db"))).toEqual({ pageSize: 16384, journal: "wal" });
    expect(pageSize(path.join(dir, "four.db"), "4")).toEqual({ pageSize: 4096, journal: "wal" });
    expect(pageSize(path.join(dir, "big.db"), "64")).toEqual({ pageSize: 65536, journal: "wal" });
  });

  it("leaves a store that exists with the page size it was created with", () => {
    const file = path.join(dir, "existing.db");
    expect(pageSize(file, "4").pageSize).toBe(4096);
    expect(pageSize(file).pageSize).toBe(4096);
    expect(pageSize(file, "32").pageSize).toBe(4096);
  });

  it("refuses a size SQLite has no pages of, naming the variable, before creating a file", () => {
    for (const bad of ["3", "128", "0", "16k"]) {
      const file = path.join(dir, `bad-${bad}.db`);
      expect(() => pageSize(file, bad)).toThrow(/METRON_SQLITE_PAGE_KB/);
      expect(existsSync(file)).toBe(false);
    }
  });
});

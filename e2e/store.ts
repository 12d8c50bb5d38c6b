/**
 * The e2e servers' stores, read by the tests between steps: the SQLite files under e2e/.store*, or (E2E_POSTGRES_URL,
 * set by `npm test` for its second end-to-end pass) databases of their own on the test PostgreSQL server.
 */
import Database from "better-sqlite3";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";

export type StoreName = "main" | "secure" | "restart";
const ROOT = path.resolve(import.meta.dirname, "..");
export const E2E_POSTGRES = process.env.E2E_POSTGRES_URL;

export function storeDir(name: StoreName): string {
  return path.join(ROOT, "e2e", name === "main" ? ".store" : `.store-${name}`);
}

/** The PostgreSQL URL of a store (only with E2E_POSTGRES_URL). */
export function storeUrl(name: StoreName): string {
  const u = new URL(E2E_POSTGRES!);
  u.pathname = `/metron_e2e_${name}`;
  return u.toString();
}

function pg(url: string, text: string, params: unknown[] = []): Record<string, unknown>[] {
  const r = spawnSync(process.execPath, [path.join(ROOT, "e2e", "pg-query.mjs"), url, text, JSON.stringify(params)], {
    encoding: "utf8",
  });
  if (r.status !== 0) throw new Error(`query failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

/** A new, empty PostgreSQL database for a store (dropped first if a run left one). */
export function freshDatabase(name: StoreName): string {
  const admin = new URL(E2E_POSTGRES!);
  admin.pathname = "/postgres";
  pg(admin.toString(), `DROP DATABASE IF EXISTS metron_e2e_${name} WITH (FORCE)`);
  pg(admin.toString(), `CREATE DATABASE metron_e2e_${name}`);
  return storeUrl(name);
}

/** The environment that points a process at a store. */
export function storeEnv(name: StoreName): Record<string, string> {
  const file = path.join(storeDir(name), "e2e.db");
  return E2E_POSTGRES ? { DATABASE_PATH: file, DATABASE_URL: storeUrl(name) } : { DATABASE_PATH: file };
}

/** The rows of a read query (`?` parameters). */
export function queryStore(name: StoreName, text: string, params: unknown[] = []): Record<string, unknown>[] {
  if (E2E_POSTGRES) return pg(storeUrl(name), text, params);
  const db = new Database(path.join(storeDir(name), "e2e.db"), { readonly: true });
  try {
    return db.prepare(text).all(...params) as Record<string, unknown>[];
  } finally {
    db.close();
  }
}

/** SQLite's integrity check of the file; on PostgreSQL the server keeps its own pages (always true here). */
export function storeIntact(name: StoreName): boolean {
  if (E2E_POSTGRES) return true;
  const db = new Database(path.join(storeDir(name), "e2e.db"), { readonly: true });
  try {
    return db.pragma("integrity_check", { simple: true }) === "ok";
  } finally {
    db.close();
  }
}

/** Whether a text appears anywhere in a store: its files, or a pg_dump of its database. */
export function storeContains(name: StoreName, needle: string, files: string[]): boolean {
  if (E2E_POSTGRES) {
    const dump = spawnSync("pg_dump", ["--data-only", storeUrl(name)], { encoding: "utf8", maxBuffer: 1 << 30 });
    if (dump.status !== 0) throw new Error(`pg_dump failed: ${dump.stderr}`);
    return dump.stdout.includes(needle);
  }
  return files.some((f) => readFileSync(f).includes(needle));
}

/**
 * Moving a store: `metron export DIR` writes every table of Metron's store as JSON lines (one row per line, values
 * typed so that nothing is lost: integers past 2^53, BLOBs, infinities) with a manifest of row counts and SHA-256
 * sums; `metron import DIR` reads them into a new, migrated store in one transaction and checks every count and sum
 * before committing. The format names no engine: it is how a store will move to PostgreSQL (issue 18) and how it
 * moves between machines today. Left out: the search index (derived; the server rebuilds it) and the migration log
 * (the target has its own; both must be at the same migration).
 */
import type Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { beginImmediate } from "./write-lock";

export const EXPORT_FORMAT = "metron-store-export";
export const EXPORT_VERSION = 1;

/** Tables that are not exported: derived (the search index and its bookkeeping) or the migration log. */
const LEFT_OUT = /^(sqlite_|__drizzle_migrations$|search_docs|search_indexed$)/;

export interface TableManifest {
  name: string;
  columns: string[];
  rows: number;
  file: string;
  sha256: string;
}

export interface ExportManifest {
  format: typeof EXPORT_FORMAT;
  version: number;
  /** How many migrations the store had applied, and the newest one's timestamp: the target must match. */
  migrations: { count: number; last: number };
  exported_at: string;
  tables: TableManifest[];
  /** Benchmark database files the store refers to (they are referenced, not copied). */
  database_files: string[];
}

export class TransferError extends Error {}

type Cell = string | number | bigint | null | Uint8Array;

/** A value as JSON that reads back to the same SQLite value. */
export function encodeCell(v: Cell): unknown {
  if (v === null || typeof v === "string") return v;
  if (typeof v === "bigint")
    return v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : { $int: `${v}` };
  if (typeof v === "number") return Number.isFinite(v) ? (Number.isInteger(v) ? { $real: v } : v) : { $real: `${v}` };
  return { $blob: Buffer.from(v).toString("base64") };
}

export function decodeCell(v: unknown, where: () => string): Cell {
  if (v === null || typeof v === "string") return v;
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : v;
  if (typeof v === "object") {
    const o = v as { $int?: string; $real?: number | string; $blob?: string };
    if (typeof o.$int === "string") return BigInt(o.$int);
    if (o.$real !== undefined) return Number(o.$real);
    if (typeof o.$blob === "string") return Buffer.from(o.$blob, "base64");
  }
  throw new TransferError(`${where()}: a value Metron did not write (${JSON.stringify(v).slice(0, 80)})`);
}

function migrationsOf(sqlite: Database.Database): ExportManifest["migrations"] {
  const row = sqlite.prepare("SELECT count(*) AS count, max(created_at) AS last FROM __drizzle_migrations").get() as {
    count: number;
    last: number | null;
  };
  return { count: row.count, last: Number(row.last ?? 0) };
}

function tablesOf(sqlite: Database.Database): { name: string; columns: string[] }[] {
  const names = (
    sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
  )
    .map((r) => r.name)
    .filter((n) => !LEFT_OUT.test(n));
  return names.map((name) => ({
    name,
    columns: (sqlite.prepare(`SELECT name FROM pragma_table_info(?) ORDER BY cid`).all(name) as { name: string }[]).map(
      (c) => c.name,
    ),
  }));
}

const quote = (id: string) => `"${id.replaceAll('"', '""')}"`;

/** Writes the store into `dir` (created; must be empty). Reads in one transaction, so the copy is consistent. */
export async function exportStore(sqlite: Database.Database, dir: string): Promise<ExportManifest> {
  if (existsSync(dir) && readdirSync(dir).length)
    throw new TransferError(`${dir} is not empty: export into a new folder`);
  mkdirSync(dir, { recursive: true });
  const tables: TableManifest[] = [];
  sqlite.exec("BEGIN"); // a read transaction: one snapshot for every table
  try {
    for (const t of tablesOf(sqlite)) {
      const file = `${t.name}.jsonl`;
      const out = createWriteStream(path.join(dir, file));
      const hash = createHash("sha256");
      let rows = 0;
      const stmt = sqlite.prepare(`SELECT ${t.columns.map(quote).join(", ")} FROM ${quote(t.name)}`).raw(true);
      stmt.safeIntegers(true);
      for (const row of stmt.iterate() as Iterable<Cell[]>) {
        const line = JSON.stringify(row.map(encodeCell)) + "\n";
        hash.update(line);
        rows++;
        if (!out.write(line)) await new Promise<void>((r) => out.once("drain", () => r()));
      }
      await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
      tables.push({ name: t.name, columns: t.columns, rows, file, sha256: hash.digest("hex") });
    }
    const files = sqlite.prepare("SELECT path FROM databases ORDER BY path").all() as { path: string }[];
    const manifest: ExportManifest = {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      migrations: migrationsOf(sqlite),
      exported_at: new Date().toISOString(),
      tables,
      database_files: files.map((f) => f.path),
    };
    await writeFile(path.join(dir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
    return manifest;
  } finally {
    sqlite.exec("COMMIT");
  }
}

export interface ImportReport {
  tables: { name: string; rows: number }[];
  /** Benchmark database files the store refers to that are not on this machine. */
  missing_database_files: string[];
}

/**
 * Reads an export into `sqlite`, a migrated store with no data, in one transaction: every table's row count and
 * SHA-256 must match the manifest, or nothing is kept.
 */
export async function importStore(sqlite: Database.Database, dir: string): Promise<ImportReport> {
  const manifestFile = path.join(dir, "manifest.json");
  if (!existsSync(manifestFile)) throw new TransferError(`${dir} holds no manifest.json: not a metron export`);
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as ExportManifest;
  if (manifest.format !== EXPORT_FORMAT || manifest.version !== EXPORT_VERSION)
    throw new TransferError(
      `manifest.json: format ${manifest.format} v${manifest.version} is not one this Metron reads`,
    );
  const here = migrationsOf(sqlite);
  if (here.count !== manifest.migrations.count || here.last !== manifest.migrations.last)
    throw new TransferError(
      `the export was made at migration ${manifest.migrations.count} and this store is at ${here.count}: use the same Metron version on both sides`,
    );
  const known = new Map(tablesOf(sqlite).map((t) => [t.name, t.columns]));
  for (const t of manifest.tables) {
    const columns = known.get(t.name);
    if (!columns) throw new TransferError(`manifest.json: table ${t.name} does not exist in this store`);
    const extra = t.columns.filter((c) => !columns.includes(c));
    if (extra.length) throw new TransferError(`manifest.json: ${t.name} has columns this store lacks: ${extra}`);
    const n = (sqlite.prepare(`SELECT count(*) AS n FROM ${quote(t.name)}`).get() as { n: number }).n;
    if (n > 0)
      throw new TransferError(`this store already holds ${n} rows in ${t.name}: import into a new, empty store`);
  }
  await beginImmediate(sqlite);
  try {
    const report: ImportReport = { tables: [], missing_database_files: [] };
    for (const t of manifest.tables) {
      const insert = sqlite.prepare(
        `INSERT INTO ${quote(t.name)} (${t.columns.map(quote).join(", ")}) VALUES (${t.columns.map(() => "?").join(", ")})`,
      );
      const hash = createHash("sha256");
      let rows = 0;
      const lines = createInterface({ input: createReadStream(path.join(dir, t.file)), crlfDelay: Infinity });
      for await (const line of lines) {
        if (!line) continue;
        hash.update(line + "\n");
        rows++;
        const where = () => `${t.file} line ${rows}`;
        let values: unknown;
        try {
          values = JSON.parse(line);
        } catch (e) {
          throw new TransferError(`${where()}: ${(e as Error).message}`);
        }
        if (!Array.isArray(values) || values.length !== t.columns.length)
          throw new TransferError(`${where()}: expected ${t.columns.length} values`);
        insert.run(values.map((v) => decodeCell(v, where)));
      }
      if (rows !== t.rows) throw new TransferError(`${t.file}: ${rows} rows, the manifest says ${t.rows}`);
      if (hash.digest("hex") !== t.sha256)
        throw new TransferError(`${t.file}: its SHA-256 does not match the manifest`);
      report.tables.push({ name: t.name, rows });
    }
    // Every run's derived data is computed again on first view (its version changes).
    sqlite.exec("UPDATE runs SET version = version + 1");
    sqlite.exec("COMMIT");
    report.missing_database_files = manifest.database_files.filter((f) => !existsSync(f));
    return report;
  } catch (e) {
    sqlite.exec("ROLLBACK");
    throw e;
  }
}

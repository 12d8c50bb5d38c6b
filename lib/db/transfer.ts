/**
 * Moving a store: `metron export DIR` writes every table of Metron's store as JSON lines (one row per line, values
 * typed so that nothing is lost: integers past 2^53, BLOBs, infinities) with a manifest of row counts and SHA-256
 * sums; `metron import DIR` reads them into a new, migrated store in one transaction and checks every count and sum
 * before committing. The format names no engine: a store moves between machines, and between SQLite and PostgreSQL
 * (either way; `DATABASE_URL` picks the engine of each side). Left out: the search index (derived; the server rebuilds it) and the migration log
 * (the target has its own; both must be at the same migration). It walks whatever tables the store has, so its
 * statements name them at run time: Kysely's `raw` templates with quoted identifiers (`raw.id`), values as
 * placeholders.
 */
import { createHash } from "node:crypto";
import { createReadStream, createWriteStream, existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import type { Dialect, Param, Sql } from "./sql";
import { compile, many, one, qb, raw, streamRows, write } from "./typed";

export const EXPORT_FORMAT = "metron-store-export";
export const EXPORT_VERSION = 1;

/** Tables that are not exported: derived (the search index and its bookkeeping, the runs' totals, the derived cache) or the migration log. */
const LEFT_OUT = /^(sqlite_|__drizzle_migrations$|search_docs|search_indexed$|run_totals$|derived_cache$)/;

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
  /** The engine it was exported from (absent in exports made before PostgreSQL: SQLite). */
  engine?: Dialect;
  /**
   * How many migrations the store had applied, and the newest one's timestamp: a target of the same engine must
   * match; across engines every table must have exactly the same columns.
   */
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

async function migrationsOf(sql: Sql): Promise<ExportManifest["migrations"]> {
  const table = sql.dialect === "postgres" ? raw.id("drizzle", "__drizzle_migrations") : raw.id("__drizzle_migrations");
  const row = await one(
    sql,
    raw<{ count: number; last: number | null }>`SELECT count(*) AS count, max(created_at) AS last FROM ${table}`,
  );
  return { count: Number(row?.count ?? 0), last: Number(row?.last ?? 0) };
}

interface StoreTable {
  name: string;
  columns: string[];
  /** PostgreSQL: the `bigint` columns (read as BigInt so that no integer loses digits). */
  types: string[];
}

async function tablesOf(sql: Sql): Promise<StoreTable[]> {
  if (sql.dialect === "postgres") {
    const cols = await many(
      sql,
      raw<{ t: string; c: string; type: string }>`SELECT table_name AS t, column_name AS c, data_type AS type
        FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`,
    );
    const tables = new Map<string, StoreTable>();
    for (const { t, c, type } of cols) {
      if (LEFT_OUT.test(t)) continue;
      const table = tables.get(t) ?? { name: t, columns: [], types: [] };
      table.columns.push(c);
      table.types.push(type);
      tables.set(t, table);
    }
    return [...tables.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  }
  const names = (
    await many(sql, raw<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`)
  )
    .map((r) => r.name)
    .filter((n) => !LEFT_OUT.test(n));
  const out: StoreTable[] = [];
  for (const name of names) {
    const cols = await many(
      sql,
      raw<{ name: string; type: string }>`SELECT name, type FROM pragma_table_info(${name}) ORDER BY cid`,
    );
    out.push({ name, columns: cols.map((c) => c.name), types: cols.map((c) => c.type.toLowerCase()) });
  }
  return out;
}

/** One row read back as cells: PostgreSQL's doubles that hold integers stay reals; its bigints become BigInt. */
function cellsOf(table: StoreTable, row: unknown[], dialect: Dialect): Cell[] {
  if (dialect === "sqlite") return row as Cell[];
  return row.map((v, i) => {
    if (v === null || v === undefined) return null;
    if (table.types[i] === "bigint") return BigInt(v as string);
    if (table.types[i] === "double precision") return Number(v);
    return v as Cell;
  });
}

/** Writes the store into `dir` (created; must be empty). Reads in one snapshot, so the copy is consistent. */
export async function exportStore(sql: Sql, dir: string): Promise<ExportManifest> {
  if (existsSync(dir) && readdirSync(dir).length)
    throw new TransferError(`${dir} is not empty: export into a new folder`);
  mkdirSync(dir, { recursive: true });
  return sql.transaction(
    async (tx) => {
      const tables: TableManifest[] = [];
      for (const t of await tablesOf(tx)) {
        const file = `${t.name}.jsonl`;
        const out = createWriteStream(path.join(dir, file));
        const hash = createHash("sha256");
        let rows = 0;
        // PostgreSQL: bigint as text, so that the cursor's rows keep every digit (cellsOf makes them BigInt).
        const select = raw.join(
          t.columns.map((c, i) =>
            tx.dialect === "postgres" && t.types[i] === "bigint" ? raw`${raw.id(c)}::text` : raw.id(c),
          ),
        );
        for await (const row of streamRows(tx, raw`SELECT ${select} FROM ${raw.id(t.name)}`)) {
          const line = JSON.stringify(cellsOf(t, row, tx.dialect).map(encodeCell)) + "\n";
          hash.update(line);
          rows++;
          if (!out.write(line)) await new Promise<void>((r) => out.once("drain", () => r()));
        }
        await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
        tables.push({ name: t.name, columns: t.columns, rows, file, sha256: hash.digest("hex") });
      }
      const files = await many(tx, qb(tx).selectFrom("databases").select("path").orderBy("path"));
      const manifest: ExportManifest = {
        format: EXPORT_FORMAT,
        version: EXPORT_VERSION,
        engine: tx.dialect,
        migrations: await migrationsOf(tx),
        exported_at: new Date().toISOString(),
        tables,
        database_files: files.map((f) => f.path),
      };
      await writeFile(path.join(dir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
      return manifest;
    },
    { readOnly: true },
  );
}

export interface ImportReport {
  tables: { name: string; rows: number }[];
  /** Benchmark database files the store refers to that are not on this machine. */
  missing_database_files: string[];
}

/** Rows per INSERT: many at once (one round trip to PostgreSQL per batch), under both engines' parameter limits. */
const batchRows = (columns: number) => Math.max(1, Math.min(500, Math.floor(30_000 / columns)));

/**
 * Reads an export into `sql`, a migrated store with no data, in one transaction: every table's row count and
 * SHA-256 must match the manifest, or nothing is kept.
 */
export async function importStore(sql: Sql, dir: string): Promise<ImportReport> {
  const manifestFile = path.join(dir, "manifest.json");
  if (!existsSync(manifestFile)) throw new TransferError(`${dir} holds no manifest.json: not a metron export`);
  const manifest = JSON.parse(readFileSync(manifestFile, "utf8")) as ExportManifest;
  if (manifest.format !== EXPORT_FORMAT || manifest.version !== EXPORT_VERSION)
    throw new TransferError(
      `manifest.json: format ${manifest.format} v${manifest.version} is not one this Metron reads`,
    );
  const sourceEngine = manifest.engine ?? "sqlite";
  const known = new Map((await tablesOf(sql)).map((t) => [t.name, t.columns]));
  if (sourceEngine === sql.dialect) {
    const here = await migrationsOf(sql);
    if (here.count !== manifest.migrations.count || here.last !== manifest.migrations.last)
      throw new TransferError(
        `the export was made at migration ${manifest.migrations.count} and this store is at ${here.count}: use the same Metron version on both sides`,
      );
  } else {
    // Across engines the migration logs differ; the tables must not.
    const exported = new Set(manifest.tables.map((t) => t.name));
    const missing = [...known.keys()].filter((n) => !exported.has(n));
    if (missing.length)
      throw new TransferError(
        `the export has no ${missing.join(", ")}, which this ${sql.dialect} store has: use the same Metron version on both sides`,
      );
    for (const t of manifest.tables) {
      const lacking = (known.get(t.name) ?? []).filter((c) => !t.columns.includes(c));
      if (lacking.length)
        throw new TransferError(
          `manifest.json: ${t.name} lacks columns of this store (${lacking.join(", ")}): use the same Metron version on both sides`,
        );
    }
  }
  for (const t of manifest.tables) {
    const columns = known.get(t.name);
    if (!columns) throw new TransferError(`manifest.json: table ${t.name} does not exist in this store`);
    const extra = t.columns.filter((c) => !columns.includes(c));
    if (extra.length) throw new TransferError(`manifest.json: ${t.name} has columns this store lacks: ${extra}`);
    const n = Number((await one(sql, raw<{ n: number }>`SELECT count(*) AS n FROM ${raw.id(t.name)}`))?.n ?? 0);
    if (n > 0)
      throw new TransferError(`this store already holds ${n} rows in ${t.name}: import into a new, empty store`);
  }
  const report: ImportReport = { tables: [], missing_database_files: [] };
  await sql.transaction(async (tx) => {
    for (const t of manifest.tables) {
      const perBatch = batchRows(t.columns.length);
      const head = raw`INSERT INTO ${raw.id(t.name)} (${raw.join(t.columns.map((c) => raw.id(c)))}) VALUES `;
      let pending: Param[][] = [];
      const flush = async () => {
        if (!pending.length) return;
        await write(tx, raw`${head}${raw.join(pending.map((row) => raw`(${raw.join(row)})`))}`);
        pending = [];
      };
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
        const cells = values.map((v) => decodeCell(v, where));
        if (tx.dialect === "postgres")
          cells.forEach((c, i) => {
            if (typeof c === "string" && c.includes("\u0000"))
              throw new TransferError(
                `${where()}: ${t.columns[i]} holds a NUL character, which PostgreSQL text cannot store`,
              );
          });
        pending.push(cells as Param[]);
        if (pending.length >= perBatch) await flush();
      }
      await flush();
      if (rows !== t.rows) throw new TransferError(`${t.file}: ${rows} rows, the manifest says ${t.rows}`);
      if (hash.digest("hex") !== t.sha256)
        throw new TransferError(`${t.file}: its SHA-256 does not match the manifest`);
      report.tables.push({ name: t.name, rows });
    }
    if (tx.dialect === "postgres") {
      // Identity columns (run_changes.id) continue after the imported ids.
      const identities = await many(
        tx,
        raw<{ t: string; c: string }>`SELECT table_name AS t, column_name AS c FROM information_schema.columns
          WHERE table_schema = current_schema() AND is_identity = 'YES'`,
      );
      for (const { t, c } of identities) {
        const quoted = compile(tx, raw`${raw.id(t)}`).sql; // pg_get_serial_sequence takes the table's quoted name
        await one(
          tx,
          raw`SELECT setval(pg_get_serial_sequence(${quoted}, ${c}), coalesce((SELECT max(${raw.id(c)}) FROM ${raw.id(t)}), 0) + 1, false)`,
        );
      }
    }
    // Every run's derived data is computed again on first view (its version changes).
    await write(
      tx,
      qb(tx)
        .updateTable("runs")
        .set((eb) => ({ version: eb("version", "+", 1) })),
    );
  });
  report.missing_database_files = manifest.database_files.filter((f) => !existsSync(f));
  return report;
}

/**
 * Schema-only databases, for benchmarks whose data is not at hand: every table and column, no rows, so
 * gold tables can be extracted with EXPLAIN but query results are empty.
 */
import Database from "better-sqlite3";
import { randomUUID } from "node:crypto";
import { renameSync, rmSync } from "node:fs";

/** One database of a Spider-style tables.json. */
export interface SpiderSchema {
  db_id: string;
  table_names_original: string[];
  column_names_original: [number, string][];
  column_types: string[];
  primary_keys: (number | number[])[];
  foreign_keys: [number, number][];
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;
const TYPE_MAP: Record<string, string> = {
  text: "TEXT",
  number: "NUMERIC",
  time: "TEXT",
  boolean: "BOOLEAN",
  others: "",
  integer: "INTEGER",
  real: "REAL",
};

/** CREATE TABLE statements for a tables.json entry, with its primary and foreign keys. */
export function ddlFromSpiderSchema(schema: SpiderSchema): string {
  const columnsOf = new Map<number, { index: number; name: string; type: string }[]>();
  schema.column_names_original.forEach(([table, name], index) => {
    if (table < 0) return;
    const list = columnsOf.get(table) ?? [];
    list.push({ index, name, type: TYPE_MAP[schema.column_types[index]?.toLowerCase()] ?? "" });
    columnsOf.set(table, list);
  });
  const pkOf = new Map<number, number[]>();
  for (const pk of schema.primary_keys) {
    const cols = Array.isArray(pk) ? pk : [pk];
    const table = schema.column_names_original[cols[0]]?.[0];
    if (table !== undefined && table >= 0) pkOf.set(table, cols);
  }
  // SQLite's own tables (`sqlite_sequence`, which a database with AUTOINCREMENT holds: Spider's tables.json lists it
  // for world_1, soccer_1 and store_1) cannot be created, and a database's inspection leaves them out too.
  const internal = (name: string | undefined) => name !== undefined && /^sqlite_/i.test(name);
  return schema.table_names_original
    .map((table, t) => {
      if (internal(table)) return null;
      const cols = columnsOf.get(t) ?? [];
      const lines = cols.map((c) => `  ${quote(c.name)}${c.type ? ` ${c.type}` : ""}`);
      const pk = pkOf.get(t);
      if (pk) lines.push(`  PRIMARY KEY (${pk.map((i) => quote(schema.column_names_original[i][1])).join(", ")})`);
      for (const [from, to] of schema.foreign_keys) {
        const [fromTable, fromCol] = schema.column_names_original[from] ?? [];
        const [toTable, toCol] = schema.column_names_original[to] ?? [];
        if (fromTable === t && toTable !== undefined && toTable >= 0 && !internal(schema.table_names_original[toTable]))
          lines.push(
            `  FOREIGN KEY (${quote(fromCol)}) REFERENCES ${quote(schema.table_names_original[toTable])} (${quote(toCol)})`,
          );
      }
      return `CREATE TABLE ${quote(table)} (\n${lines.join(",\n")}\n);`;
    })
    .filter((ddl) => ddl !== null)
    .join("\n");
}

/**
 * Writes a fresh schema-only database file from DDL text: built beside it under a name of its own, then renamed into
 * place, so a failed build removes only what it made and leaves the previous file as it was.
 */
export function buildSchemaOnlyDatabase(file: string, ddl: string): void {
  const building = `${file}.${randomUUID()}.building`;
  const db = new Database(building);
  try {
    db.exec(ddl);
    db.close();
    renameSync(building, file);
  } catch (e) {
    if (db.open) db.close();
    rmSync(building, { force: true });
    throw new Error(`cannot build a schema-only database: ${(e as Error).message}`);
  }
}

/**
 * Foreign keys that DDL files state only in comments, as BIRD's schema DDL does: a line
 * `-- Foreign keys: other.col (many-to-one), …` above a column definition links that column to each target.
 * A `(one-to-many)` target is the other side of a key (`atom.atom_id` is referenced by `connected.atom_id`), stated
 * again as `(many-to-one)` on the referencing column: it is skipped, else the referenced column would read as a
 * reference to the table that references it (BIRD states every one-to-many key from both sides).
 */
export function ddlCommentForeignKeys(
  ddl: string,
): { table: string; column: string; refTable: string; refColumn: string }[] {
  const out: { table: string; column: string; refTable: string; refColumn: string }[] = [];
  let table: string | undefined;
  let pending: { refTable: string; refColumn: string }[] = [];
  const unquote = (s: string) => s.replace(/^[`"[]|[`"\]]$/g, "");
  for (const line of ddl.split(/\r?\n/)) {
    const create = /^\s*CREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?([`"[]?[^\s(`"\]]+[`"\]]?)/i.exec(line);
    if (create) {
      table = unquote(create[1]);
      pending = [];
      continue;
    }
    const fk = /^\s*--\s*Foreign keys?:\s*(.+)$/i.exec(line);
    if (fk) {
      pending = [...fk[1].matchAll(/([\w$]+)\.([\w$ ]+?)\s*(?:\(([^)]*)\)|,|$)/g)]
        .filter((m) => !/^\s*one-to-many\s*$/i.test(m[3] ?? ""))
        .map((m) => ({ refTable: m[1], refColumn: m[2].trim() }));
      continue;
    }
    if (/^\s*--/.test(line) || !line.trim()) continue;
    const column = /^\s*([`"[][^`"\]]+[`"\]]|[\w$]+)/.exec(line);
    if (table && column && pending.length) {
      for (const p of pending) out.push({ table, column: unquote(column[1]), ...p });
    }
    pending = [];
  }
  return out;
}

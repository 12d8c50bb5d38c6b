/** Reads a SQLite database's tables, columns, row counts and foreign keys, and hashes its file. */
import Database from "better-sqlite3";
import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import type { ForeignKey, TableInfo } from "@/lib/db/schema";
import type { DescriptionMap } from "./descriptions";

export function sha256File(file: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(file)
      .on("data", (c) => hash.update(c))
      .on("error", reject)
      .on("end", () => resolve(hash.digest("hex")));
  });
}

export function fileSize(file: string): number {
  return statSync(file).size;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

export function inspectDatabase(
  file: string,
  descriptions?: DescriptionMap,
): { tables: TableInfo[]; foreignKeys: ForeignKey[] } {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const names = (
      db
        .prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .all() as { name: string }[]
    ).map((r) => r.name);
    const foreignKeys: ForeignKey[] = [];
    const tables = names.map((name): TableInfo => {
      const desc = descriptions?.get(name.toLowerCase());
      const columns = (
        db.prepare(`PRAGMA table_info(${quote(name)})`).all() as { name: string; type: string; pk: number }[]
      ).map((c) => {
        const d = desc?.get(c.name.toLowerCase());
        return {
          name: c.name,
          type: c.type,
          pk: c.pk > 0,
          ...(d?.description ? { description: d.description } : {}),
          ...(d?.valueDescription ? { valueDescription: d.valueDescription } : {}),
        };
      });
      for (const fk of db.prepare(`PRAGMA foreign_key_list(${quote(name)})`).all() as {
        table: string;
        from: string;
        to: string | null;
      }[]) {
        foreignKeys.push({ table: name, column: fk.from, refTable: fk.table, refColumn: fk.to ?? fk.from });
      }
      const rows = (db.prepare(`SELECT count(*) AS n FROM ${quote(name)}`).get() as { n: number }).n;
      return { name, rows, columns };
    });
    return { tables, foreignKeys };
  } finally {
    db.close();
  }
}

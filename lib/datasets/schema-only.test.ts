import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sharedData } from "@/lib/testing/shared-data";
import { ddlCommentForeignKeys } from "./schema-only";

const ddl = (db: string) => readFileSync(sharedData("bird-minidev", "schema-ddl", `${db}.sql`), "utf8");

describe("foreign keys from BIRD's DDL comments", () => {
  it("reads the many-to-one side as the key and skips the one-to-many restatement on the referenced column", () => {
    const keys = ddlCommentForeignKeys(ddl("toxicology")).map(
      (k) => `${k.table}.${k.column} → ${k.refTable}.${k.refColumn}`,
    );
    expect(keys.sort()).toEqual([
      "atom.molecule_id → molecule.molecule_id",
      "bond.molecule_id → molecule.molecule_id",
      "connected.atom_id → atom.atom_id",
      "connected.atom_id2 → atom.atom_id",
      "connected.bond_id → bond.bond_id",
    ]);
  });

  it("keeps every one-to-many key once, from its many-to-one side, on all eleven databases", () => {
    const databases = readdirSync(sharedData("bird-minidev", "schema-ddl")).map((f) => f.replace(/\.sql$/, ""));
    expect(databases).toHaveLength(11);
    for (const db of databases) {
      const text = ddl(db);
      const keys = new Set(
        ddlCommentForeignKeys(text).map((k) => `${k.table}.${k.column}>${k.refTable}.${k.refColumn}`.toLowerCase()),
      );
      // Each `(one-to-many)` comment names a referencing column: that column's own key must point back here.
      let table = "";
      let pending: string[] = [];
      for (const line of text.split(/\r?\n/)) {
        const create = /^CREATE TABLE\s+[`"[]?([^\s(`"\]]+)/i.exec(line);
        if (create) table = create[1];
        const fk = /^\s*--\s*Foreign keys?:\s*(.+)$/i.exec(line);
        if (fk) {
          pending = [...fk[1].matchAll(/([\w$]+)\.([\w$ ]+?)\s*\(one-to-many\)/g)].map((m) => `${m[1]}.${m[2]}`);
          continue;
        }
        const column = /^\s*[`"[]?([\w$ ]+?)[`"\]]?\s/.exec(line);
        if (column && !line.trim().startsWith("--") && pending.length) {
          for (const ref of pending)
            expect(keys, `${db}: ${ref} → ${table}.${column[1]}`).toContain(
              `${ref}>${table}.${column[1]}`.toLowerCase(),
            );
          expect(
            [...keys].some(
              (k) =>
                k.startsWith(`${table}.${column[1]}>`.toLowerCase()) &&
                pending.some((p) => k.endsWith(`>${p}`.toLowerCase())),
            ),
          ).toBe(false);
        }
        if (!line.trim().startsWith("--") && line.trim()) pending = [];
      }
    }
  });
});

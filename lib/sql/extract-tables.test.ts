import Database from "better-sqlite3";
import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { sharedData } from "@/lib/testing/shared-data";
import { extractTables, extractTablesWithParser, readSchemaMap } from "./extract-tables";
import { prepareLegacy, quoteAsString } from "./legacy-dqs";

function schemaDb() {
  const db = new Database(":memory:");
  db.exec(`CREATE TABLE Singer (id INTEGER PRIMARY KEY, name TEXT, country TEXT);
    CREATE TABLE concert (id INTEGER PRIMARY KEY, singer_id INTEGER REFERENCES Singer(id), year INT);
    CREATE TABLE stadium (id INTEGER PRIMARY KEY, name TEXT);
    CREATE INDEX concert_year ON concert(year);
    CREATE VIEW singer_names AS SELECT name FROM Singer;
    INSERT INTO Singer VALUES (1, 'Bob', 'US'), (2, 'Ann', 'DE');`);
  return db;
}

describe("extractTables with EXPLAIN", () => {
  const db = schemaDb();
  it("maps cursors (and indexes) to tables", () => {
    expect(
      extractTables("SELECT s.name FROM singer s JOIN concert c ON c.singer_id = s.id WHERE c.year = 2014", db),
    ).toEqual({ ok: true, tables: ["concert", "Singer"], method: "explain" });
  });
  it("keeps a LEFT JOIN the optimiser drops, and a view by its name", () => {
    expect(extractTables("SELECT s.id FROM Singer s LEFT JOIN stadium t ON t.id = s.id", db)).toMatchObject({
      tables: ["Singer", "stadium"],
    });
    expect(extractTables("SELECT name FROM singer_names", db)).toMatchObject({ tables: ["Singer", "singer_names"] });
  });
  it("drops CTE names and main., folds case to the schema's spelling", () => {
    expect(extractTables("WITH x AS (SELECT * FROM main.SINGER) SELECT * FROM x", db)).toMatchObject({
      tables: ["Singer"],
      method: "explain",
    });
  });
  it("reads double-quoted strings as SQLite's legacy mode does", () => {
    expect(extractTables('SELECT id FROM Singer WHERE name = "Bob"', db)).toMatchObject({
      ok: true,
      tables: ["Singer"],
      method: "explain",
    });
    const { statement, sql } = prepareLegacy(db, 'SELECT id FROM Singer WHERE name = "Bob" OR "name" = "Ann"');
    expect(sql).toBe("SELECT id FROM Singer WHERE name = 'Bob' OR \"name\" = 'Ann'");
    expect(statement.all()).toEqual([{ id: 1 }, { id: 2 }]);
  });
  it("falls back to the parser, then reports the error", () => {
    expect(extractTables("SELECT nope FROM stadium", db)).toEqual({ ok: true, tables: ["stadium"], method: "parser" });
    expect(extractTables("SELEC garbage", db)).toMatchObject({ ok: false });
  });
});

describe("extractTablesWithParser", () => {
  it("handles non-ASCII identifiers, subqueries and CTEs", () => {
    expect(
      extractTablesWithParser("SELECT count(*) FROM sänger WHERE id IN (SELECT sänger_id FROM konzert)"),
    ).toMatchObject({ tables: ["konzert", "sänger"] });
    expect(extractTablesWithParser("WITH t AS (SELECT * FROM a) SELECT * FROM t, main.b", ["A", "B"])).toMatchObject({
      tables: ["A", "B"],
    });
  });
});

describe("quoteAsString", () => {
  it("leaves string literals and comments alone", () => {
    expect(quoteAsString(`SELECT '"x"', "x" -- "x"\nFROM t`, "x")).toBe(`SELECT '"x"', 'x' -- "x"\nFROM t`);
    expect(quoteAsString(`SELECT "it's"`, "it's")).toBe(`SELECT 'it''s'`);
  });
});

describe("the fast scan and the parser against EXPLAIN on real gold SQL", () => {
  const check = (items: { sql: string; db: Database.Database }[]) => {
    let explainable = 0;
    let parsedCount = 0;
    const disagreements: string[] = [];
    const parserDisagreements: string[] = [];
    for (const { sql, db } of items) {
      const explained = extractTables(sql, db, undefined, "parser", "fail");
      if (!explained.ok) continue;
      explainable++;
      const scanned = extractTables(sql, undefined, readSchemaMap(db).tables, "scan");
      if (!scanned.ok || JSON.stringify(scanned.tables) !== JSON.stringify(explained.tables)) disagreements.push(sql);
      // node-sql-parser's SQLite build (parse-tables.ts), where it parses the query at all
      const parsed = extractTablesWithParser(sql, readSchemaMap(db).tables);
      if (!parsed.ok) continue;
      parsedCount++;
      if (JSON.stringify(parsed.tables) !== JSON.stringify(explained.tables)) parserDisagreements.push(sql);
    }
    return { explainable, disagreements, parsed: parsedCount, parserDisagreements };
  };

  it("agree on every gold query of BIRD mini-dev (schema from its DDL) the parser reads", () => {
    const questions = JSON.parse(
      readFileSync(sharedData("bird-minidev", "mini_dev_sqlite.dev-split.json"), "utf8"),
    ) as { db_id: string; SQL: string }[];
    const dbs = new Map<string, Database.Database>();
    for (const f of readdirSync(sharedData("bird-minidev", "schema-ddl"))) {
      const db = new Database(":memory:");
      db.exec(readFileSync(sharedData("bird-minidev", "schema-ddl", f), "utf8"));
      dbs.set(f.replace(/\.sql$/, ""), db);
    }
    const r = check(questions.map((q) => ({ sql: q.SQL, db: dbs.get(q.db_id)! })));
    expect(r.explainable).toBe(244);
    expect(r.disagreements).toEqual([]);
    expect(r.parsed).toBe(242);
    expect(r.parserDisagreements).toEqual([]);
  });

  it("agree on every gold query of Spider-de that EXPLAIN reads (978 of 1030; the parser reads 908)", () => {
    const questions = JSON.parse(readFileSync(sharedData("spider-de", "dev.json"), "utf8")) as {
      db_id: string;
      query: string;
    }[];
    const dbs = new Map<string, Database.Database>();
    const db = (id: string) =>
      dbs.get(id) ??
      dbs.set(id, new Database(sharedData("spider-de", "database", id, `${id}.sqlite`), { readonly: true })).get(id)!;
    const r = check(questions.map((q) => ({ sql: q.query, db: db(q.db_id) })));
    expect(r.explainable).toBe(978);
    expect(r.disagreements).toEqual([]);
    expect(r.parsed).toBe(908);
    expect(r.parserDisagreements).toEqual([]);
    for (const d of dbs.values()) d.close();
  });
});

describe("a gold query SQLite refuses", () => {
  it("has unknown tables when asked to fail, instead of the parser's guess", () => {
    const db = schemaDb();
    expect(extractTables("SELECT nope FROM stadium", db, undefined, "parser", "fail")).toMatchObject({
      ok: false,
      method: "explain",
    });
  });
});

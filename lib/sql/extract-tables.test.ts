import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { extractTables, extractTablesWithParser } from "./extract-tables";
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
    expect(extractTables("SELECT s.name FROM singer s JOIN concert c ON c.singer_id = s.id WHERE c.year = 2014", db)).toEqual({ ok: true, tables: ["concert", "Singer"], method: "explain" });
  });
  it("keeps a LEFT JOIN the optimiser drops, and a view by its name", () => {
    expect(extractTables("SELECT s.id FROM Singer s LEFT JOIN stadium t ON t.id = s.id", db)).toMatchObject({ tables: ["Singer", "stadium"] });
    expect(extractTables("SELECT name FROM singer_names", db)).toMatchObject({ tables: ["Singer", "singer_names"] });
  });
  it("drops CTE names and main., folds case to the schema's spelling", () => {
    expect(extractTables("WITH x AS (SELECT * FROM main.SINGER) SELECT * FROM x", db)).toMatchObject({ tables: ["Singer"], method: "explain" });
  });
  it("reads double-quoted strings as SQLite's legacy mode does", () => {
    expect(extractTables('SELECT id FROM Singer WHERE name = "Bob"', db)).toMatchObject({ ok: true, tables: ["Singer"], method: "explain" });
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
    expect(extractTablesWithParser("SELECT count(*) FROM sänger WHERE id IN (SELECT sänger_id FROM konzert)")).toMatchObject({ tables: ["konzert", "sänger"] });
    expect(extractTablesWithParser("WITH t AS (SELECT * FROM a) SELECT * FROM t, main.b", ["A", "B"])).toMatchObject({ tables: ["A", "B"] });
  });
});

describe("quoteAsString", () => {
  it("leaves string literals and comments alone", () => {
    expect(quoteAsString(`SELECT '"x"', "x" -- "x"\nFROM t`, "x")).toBe(`SELECT '"x"', 'x' -- "x"\nFROM t`);
    expect(quoteAsString(`SELECT "it's"`, "it's")).toBe(`SELECT 'it''s'`);
  });
});

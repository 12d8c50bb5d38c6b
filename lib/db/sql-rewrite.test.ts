/**
 * The PostgreSQL rewriting of statements written for both engines (`?` placeholders, camelCase aliases), and the
 * SQLite wrapper answering `all`/`get` on a statement that returns no rows as PostgreSQL does.
 */
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { numberPlaceholders, quoteAliases, sqliteSql, toPostgres } from "./sql";

describe("numberPlaceholders", () => {
  it("numbers the placeholders of the code in order", () => {
    expect(numberPlaceholders("SELECT * FROM t WHERE a = ? AND b IN (?, ?)")).toBe(
      "SELECT * FROM t WHERE a = $1 AND b IN ($2, $3)",
    );
  });
  it("leaves a ? in a string literal, a quoted name, a line comment and a block comment alone", () => {
    const text = `SELECT '?' AS q, "a?" FROM t -- why?\nWHERE /* is it ? or ?? */ x = ? AND y = '??' AND z = ?`;
    expect(numberPlaceholders(text)).toBe(
      `SELECT '?' AS q, "a?" FROM t -- why?\nWHERE /* is it ? or ?? */ x = $1 AND y = '??' AND z = $2`,
    );
  });
  it("reads an escaped quote ('') as part of its literal", () => {
    expect(numberPlaceholders("SELECT 'it''s ?' WHERE a = ?")).toBe("SELECT 'it''s ?' WHERE a = $1");
  });
  it("keeps going after an unclosed comment or literal without numbering inside it", () => {
    expect(numberPlaceholders("SELECT ? /* ?")).toBe("SELECT $1 /* ?");
    expect(numberPlaceholders("SELECT ?, '?")).toBe("SELECT $1, '?");
  });
});

describe("quoteAliases", () => {
  it("quotes camelCase aliases after AS in any case, not lower-case ones or quoted ones", () => {
    expect(quoteAliases('SELECT run_id AS runId, name as runName, x As someX, y AS plain, z AS "keptAs"')).toBe(
      'SELECT run_id AS "runId", name as "runName", x As "someX", y AS plain, z AS "keptAs"',
    );
  });
  it("leaves literals and comments alone", () => {
    expect(quoteAliases("SELECT 'a AS fooBar' AS fooBar -- b AS barBaz")).toBe(
      `SELECT 'a AS fooBar' AS "fooBar" -- b AS barBaz`,
    );
  });
  it("does not take a word ending in 'as' for the keyword", () => {
    expect(quoteAliases("SELECT areas fooBar, x AS aB")).toBe('SELECT areas fooBar, x AS "aB"');
  });
});

describe("toPostgres", () => {
  it("rewrites both at once and is stable", () => {
    const text = "SELECT count(*) AS nTraces FROM traces WHERE run_id = ? /* ? */ AND id > ?";
    const once = toPostgres(text);
    expect(once).toBe('SELECT count(*) AS "nTraces" FROM traces WHERE run_id = $1 /* ? */ AND id > $2');
    expect(toPostgres(text)).toBe(once);
  });
});

describe("the SQLite wrapper", () => {
  it("runs an INSERT given to all() or get() and returns no rows, as PostgreSQL does", async () => {
    const sql = sqliteSql(new Database(":memory:"));
    await sql.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
    expect(await sql.all("INSERT INTO t (v) VALUES (?)", ["a"])).toEqual([]);
    expect(await sql.get("INSERT INTO t (v) VALUES (?)", ["b"])).toBeUndefined();
    expect(await sql.all("INSERT INTO t (v) VALUES (?) RETURNING id", ["c"])).toEqual([{ id: 3 }]);
    expect(await sql.all("SELECT v FROM t ORDER BY id")).toEqual([{ v: "a" }, { v: "b" }, { v: "c" }]);
    await sql.close();
  });
});

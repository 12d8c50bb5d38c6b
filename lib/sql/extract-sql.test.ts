import { describe, expect, it } from "vitest";
import { extractSql } from "./extract-sql";

describe("extractSql", () => {
  it("takes the SQL out of a Markdown fence, whatever its tag", () => {
    expect(extractSql("```sql\nSELECT * FROM frpm\n```")).toEqual({ sql: "SELECT * FROM frpm", extracted: "fence" });
    expect(extractSql("Here it is:\n```SQLite\nSELECT 1;\n```\nDone.")).toEqual({
      sql: "SELECT 1;",
      extracted: "fence",
    });
    expect(extractSql("```\nSELECT 2\n```")).toEqual({ sql: "SELECT 2", extracted: "fence" });
    // The last SQL fence wins over an earlier draft and over an untagged block.
    expect(extractSql("```sql\nSELECT 1\n```\n```text\nnote\n```\n```sql\nSELECT 3\n```").sql).toBe("SELECT 3");
    expect(extractSql("```sql\nSELECT 4 FROM t").sql).toBe("SELECT 4 FROM t"); // unclosed
  });
  it("reads the wrapping forms of real predictions (issue 30): stray fences, prose fences, nested fences, ~~~", () => {
    // SQL, then a stray closing fence: the SQL, not "one statement at a time".
    expect(extractSql("SELECT COUNT(*) FROM schools WHERE County = 'Alameda'\n```")).toEqual({
      sql: "SELECT COUNT(*) FROM schools WHERE County = 'Alameda'",
      extracted: "fence",
    });
    // SQL, then a fence of prose: the SQL before it (not a table called "the").
    expect(extractSql("SELECT name FROM superhero WHERE id = 1\n```\nthe query returns the hero's name\n```").sql).toBe(
      "SELECT name FROM superhero WHERE id = 1",
    );
    // A fence inside a fence: the innermost SQL, for measuring and EX alike.
    expect(extractSql("```sql\n```sql\nSELECT a FROM t\n```\n```").sql).toBe("SELECT a FROM t");
    expect(extractSql("```markdown\nHere:\n```sql\nSELECT b FROM t\n```\n```").sql).toBe("SELECT b FROM t");
    // ~~~ fences, tagged or not.
    expect(extractSql("~~~sql\nSELECT 5\n~~~")).toEqual({ sql: "SELECT 5", extracted: "fence" });
    expect(extractSql("Answer below\n~~~\nWITH x AS (SELECT 1) SELECT * FROM x\n~~~").sql).toBe(
      "WITH x AS (SELECT 1) SELECT * FROM x",
    );
    // An untagged fence of prose before a tagged one does not win; a label before a fence is stripped too.
    expect(extractSql("```\nnote: look at t\n```\n```sql\nSELECT 6 FROM t\n```").sql).toBe("SELECT 6 FROM t");
    expect(extractSql("SQL: ```sql\nSELECT 7\n```").sql).toBe("SELECT 7");
    // A comment before the statement still reads as SQL.
    expect(extractSql("```\n-- the count\nSELECT 8\n```").sql).toBe("-- the count\nSELECT 8");
  });
  it("strips a leading label", () => {
    expect(extractSql("SQL: SELECT a FROM b")).toEqual({ sql: "SELECT a FROM b", extracted: "label" });
    expect(extractSql("Final SQL:\nSELECT a FROM b").sql).toBe("SELECT a FROM b");
    expect(extractSql("answer: SELECT 1").extracted).toBe("label");
  });
  it("leaves plain SQL alone, backticked identifiers included", () => {
    expect(extractSql("SELECT `name` FROM `t`")).toEqual({ sql: "SELECT `name` FROM `t`", extracted: null });
    expect(extractSql("SELECT 'SQL: x'")).toEqual({ sql: "SELECT 'SQL: x'", extracted: null });
  });
});

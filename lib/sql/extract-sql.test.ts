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

import { describe, expect, it } from "vitest";
import { resultView } from "./step-view";
import { summarizeArgs } from "./step-summary";

describe("resultView", () => {
  it("shows JSON rows and pipe tables as tables", () => {
    expect(
      resultView(
        JSON.stringify([
          { name: "Bob", n: 2 },
          { name: null, n: 3 },
        ]),
      ),
    ).toEqual({
      kind: "table",
      columns: ["name", "n"],
      rows: [
        ["Bob", "2"],
        ["NULL", "3"],
      ],
      totalRows: 2,
    });
    expect(resultView(JSON.stringify("| name | n |\n|---|---|\n| Bob | 2 |\n| Ann | 3 |"))).toEqual({
      kind: "table",
      columns: ["name", "n"],
      rows: [
        ["Bob", "2"],
        ["Ann", "3"],
      ],
      totalRows: 2,
    });
    expect(
      resultView(
        JSON.stringify([
          [1, "a"],
          [2, "b"],
        ]),
      ),
    ).toMatchObject({
      kind: "table",
      columns: null,
      rows: [
        ["1", "a"],
        ["2", "b"],
      ],
    });
  });
  it("keeps other text as text and objects as JSON, with sizes", () => {
    expect(resultView(JSON.stringify("singer\nconcert"))).toMatchObject({
      kind: "text",
      text: "singer\nconcert",
      size: 14,
    });
    expect(resultView(JSON.stringify({ ok: true }))).toMatchObject({ kind: "json", text: '{\n  "ok": true\n}' });
    expect(resultView(null)).toEqual({ kind: "none" });
  });
});

describe("summarizeArgs", () => {
  it("prefers the SQL, then a single value, then compact key: value pairs", () => {
    expect(summarizeArgs(JSON.stringify({ query: "SELECT *\n  FROM t", max_rows: 5 }))).toBe("SELECT * FROM t");
    expect(summarizeArgs(JSON.stringify({ table_name: "singer" }))).toBe("singer");
    expect(summarizeArgs(JSON.stringify({ column: "x", table: "t" }))).toBe("column: x, table: t");
    expect(summarizeArgs(null)).toBe("");
  });
});

import { describe, expect, it } from "vitest";
import { classifyStep } from "./classify-step";
import { isEmptyResult, markProbes } from "./probes";

describe("isEmptyResult", () => {
  it("tells empty results from others, and unknown from empty", () => {
    expect(isEmptyResult(undefined)).toBeNull();
    expect(isEmptyResult([])).toBe(true);
    expect(isEmptyResult("[]")).toBe(true);
    expect(isEmptyResult({ rows: [], columns: ["a"] })).toBe(true);
    expect(isEmptyResult('{"row_count": 0}')).toBe(true);
    expect(isEmptyResult("name | id\n(0 rows)")).toBe(true); // Metron's own read_query
    expect(isEmptyResult("No rows returned")).toBe(true);
    expect(isEmptyResult("name | id\nBob | 1\n(1 rows)")).toBe(false);
    expect(isEmptyResult([[1]])).toBe(false);
    expect(isEmptyResult("Error: no such table")).toBe(false);
  });
});

describe("markProbes", () => {
  const probe = (sql: string, empty: boolean | null) => ({
    cls: classifyStep("read_query", { query: sql }),
    sql,
    empty,
  });
  it("counts empty probes and marks the refinement that follows one (same tables, changed SQL)", () => {
    const marks = markProbes([
      { cls: classifyStep("list_tables", {}), sql: undefined, empty: null },
      probe("SELECT * FROM schools WHERE county = 'alameda'", true),
      probe("SELECT count(*) FROM frpm", false),
      probe("SELECT * FROM schools WHERE county = 'Alameda'", false),
      probe("SELECT * FROM schools WHERE county = 'Alameda'", true),
      probe("SELECT * FROM schools  WHERE county = 'Alameda' ", false), // same SQL once spaces are folded: a repeat
    ]);
    expect(marks.emptyProbeCount).toBe(2);
    expect(marks.refines).toEqual([null, null, null, 1, null, null]);
  });
  it("says unknown when no probe recorded its result", () => {
    expect(markProbes([probe("SELECT 1 FROM t", null)]).emptyProbeCount).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { alignSteps, normaliseText, type AlignStep } from "./align";

const step = (seq: number, tool: string, tables: string[] = [], text: string | null = null): AlignStep => ({
  seq,
  tool,
  tables,
  text,
});

describe("aligning two traces' steps", () => {
  it("puts matching steps on one row, marks steps only one trace took, and finds the first divergence", () => {
    // No Directives: lists, describes a distractor, the gold tables, probes, submits.
    const none = [
      step(0, "list_tables"),
      step(1, "describe_table", ["customers"], '{"table_name":"customers"}'),
      step(2, "describe_table", ["payments"], '{"table_name":"payments"}'),
      step(3, "describe_table", ["orders"], '{"table_name":"orders"}'),
      step(4, "read_query", ["orders"], "SELECT * FROM orders LIMIT 3"),
      step(5, "submit_final_query", ["customers", "orders"], "SELECT count(*) FROM customers JOIN orders USING (id)"),
    ];
    // Sophrosyne: the directive flags payments, so it is never described; the probe is formatted otherwise.
    const sophrosyne = [
      step(0, "list_tables"),
      step(1, "describe_table", ["customers"], '{"table_name": "customers"}'),
      step(2, "describe_table", ["orders"], '{"table_name":"orders"}'),
      step(3, "read_query", ["orders"], "select *\n  from `orders` limit 3;"),
      step(
        4,
        "submit_final_query",
        ["orders", "customers"],
        "SELECT count(*) FROM customers JOIN orders USING (id) WHERE x = 1",
      ),
    ];
    const a = alignSteps(none, sophrosyne);
    expect(a.rows.map((r) => [r.left?.seq ?? null, r.right?.seq ?? null, r.kind])).toEqual([
      [0, 0, "same"],
      [1, 1, "same"],
      [2, null, "only-left"],
      [3, 2, "same"],
      [4, 3, "same"],
      [5, 4, "changed"], // the answers share a table: one row, changed
    ]);
    expect(a.firstDivergence).toBe(2);
    expect(a).toMatchObject({ same: 4, changed: 1, onlyLeft: 1, onlyRight: 0 });
  });

  it("does not match steps of another tool, or describing another table", () => {
    const a = alignSteps(
      [step(0, "describe_table", ["a"], "a")],
      [step(0, "describe_table", ["b"], "b"), step(1, "read_query", ["a"], "a")],
    );
    expect(a).toMatchObject({ same: 0, changed: 0, onlyLeft: 1, onlyRight: 2, firstDivergence: 0 });
  });

  it("identical traces do not diverge; empty ones align to nothing", () => {
    const t = [step(0, "list_tables"), step(1, "describe_table", ["a"], "a")];
    expect(alignSteps(t, t).firstDivergence).toBeNull();
    expect(alignSteps([], t).rows.map((r) => r.kind)).toEqual(["only-right", "only-right"]);
    expect(alignSteps([], [])).toMatchObject({ rows: [], firstDivergence: null });
  });

  it("normalises SQL for comparison without changing what it means", () => {
    expect(normaliseText('SELECT  "a" , b FROM t ;')).toBe(normaliseText("select a,b from t"));
    expect(normaliseText("SELECT a FROM t WHERE x = 1")).not.toBe(normaliseText("SELECT a FROM t WHERE x = 2"));
  });
});

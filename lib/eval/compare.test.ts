import { describe, expect, it } from "vitest";
import { resultsMatch } from "./compare";

describe("resultsMatch", () => {
  it("compares as sets by default, as bags or in order on request, floats exactly unless sig10 is named", () => {
    expect(resultsMatch([[1], [2], [2]], [[2], [1]], "set")).toBe(true);
    expect(resultsMatch([[1], [2], [2]], [[2], [1]], "bag")).toBe(false);
    expect(resultsMatch([[1], [2]], [[2], [1]], "ordered")).toBe(false);
    expect(resultsMatch([[1], [2]], [[2], [1]], "order-aware", "SELECT x FROM t ORDER BY x")).toBe(false);
    expect(resultsMatch([[1], [2]], [[2], [1]], "order-aware", "SELECT x FROM (SELECT x FROM t ORDER BY x)")).toBe(
      true,
    );
    // ORDER BY inside a comment or a string is no ORDER BY; one after a comment is.
    expect(resultsMatch([[1], [2]], [[2], [1]], "order-aware", "SELECT x FROM t -- ORDER BY x")).toBe(true);
    expect(
      resultsMatch([[1], [2]], [[2], [1]], "order-aware", "SELECT x FROM t /* ORDER BY x */ WHERE y = 'order by'"),
    ).toBe(true);
    expect(resultsMatch([[1], [2]], [[2], [1]], "order-aware", "SELECT x FROM t /* ( */ ORDER BY x")).toBe(false);
    expect(resultsMatch([[0.1 + 0.2]], [[0.3]], "set")).toBe(false); // BIRD's evaluator: exact values
    expect(resultsMatch([[0.1 + 0.2]], [[0.3]], "set", "", "sig10")).toBe(true);
    expect(resultsMatch([[1.5]], [[1.5000001]], "set", "", "sig10")).toBe(false);
    expect(resultsMatch([[1]], [[1.0]], "set")).toBe(true);
    expect(resultsMatch([["1"]], [[1]], "set")).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { count } from "./count";

describe("count", () => {
  it("puts the noun in the number the count needs", () => {
    expect(count(1, "line")).toBe("1 line");
    expect(count(0, "line")).toBe("0 lines");
    expect(count(2, "database")).toBe("2 databases");
    expect(count(1, "query", "queries")).toBe("1 query");
    expect(count(3, "query", "queries")).toBe("3 queries");
  });
});

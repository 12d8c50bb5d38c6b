import { describe, expect, it } from "vitest";
import { count, describeLinks } from "./count";

describe("count", () => {
  it("puts the noun in the number the count needs", () => {
    expect(count(1, "line")).toBe("1 line");
    expect(count(0, "line")).toBe("0 lines");
    expect(count(2, "database")).toBe("2 databases");
    expect(count(1, "query", "queries")).toBe("1 query");
    expect(count(3, "query", "queries")).toBe("3 queries");
  });
});

describe("describeLinks", () => {
  it("says linked questions by method, and unlinked ones apart", () => {
    expect(describeLinks({ exact: 2, unlinked: 1 })).toEqual({
      linked: "Questions linked: 2 by exact",
      unlinked:
        "1 question not linked to a dataset question (kept under unlinked-… ids; a dataset and a question id link them)",
    });
    expect(describeLinks({ unlinked: 3 }).linked).toBeNull();
    expect(describeLinks({ exact: 1 }).unlinked).toBeNull();
  });
});

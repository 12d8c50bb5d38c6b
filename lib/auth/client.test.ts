import { describe, expect, it } from "vitest";
import { clientOf } from "./client";

describe("the client a request counts as (issue 28)", () => {
  it("ignores a forwarded address unless the proxy is trusted, so a spoofed header cannot make a new client", () => {
    const spoofed = new Headers({ "x-forwarded-for": "203.0.113.9, 10.0.0.1" });
    expect(clientOf(spoofed, false)).toBe("local");
    expect(clientOf(spoofed, true)).toBe("203.0.113.9");
    expect(clientOf(new Headers({ "x-metron-principal": "alice", "x-forwarded-for": "1.2.3.4" }), true)).toBe("alice");
  });
});

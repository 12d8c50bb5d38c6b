import { describe, expect, it } from "vitest";
import { highlight, warmHighlighter } from "./highlight";

describe("highlight", () => {
  it("highlights short code, shows long code plain, and cuts huge code with a link to the whole text", async () => {
    const short = await highlight("SELECT name FROM singer", "sql");
    expect(short).toContain('<span style="color');

    const long = `SELECT ${"x, ".repeat(10_000)}1`;
    const plain = await highlight(long, "sql");
    expect(plain).toContain("Shown without highlighting: 30,008 characters");
    expect(plain).not.toContain('<span style="color');

    const huge = `SELECT "${"w".repeat(4_000_000)}"`;
    const cut = await highlight(huge, "sql", `/api/traces/a"b<c/text?field=final_sql`);
    expect(cut.length).toBeLessThan(101_000);
    expect(cut).toContain("Showing the first 100,000 of 4,000,009 characters");
    expect(cut).toContain('href="/api/traces/a&#34;b&#60;c/text?field=final_sql"'); // escaped, never markup
    expect(await highlight(huge, "sql")).not.toContain("href");
  });

  it("warms up without filling the snippet cache, and highlights alike after it", async () => {
    const cache = (globalThis as unknown as { metronHighlightCache: Map<string, string> }).metronHighlightCache;
    const before = await highlight("SELECT count(*) FROM pets WHERE age > 3", "sql");
    const size = cache.size;
    await warmHighlighter();
    expect(cache.size).toBe(size); // its samples are not kept: the cache is the pages'
    cache.clear();
    expect(await highlight("SELECT count(*) FROM pets WHERE age > 3", "sql")).toBe(before);
  });
});

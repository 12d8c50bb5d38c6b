import { describe, expect, it } from "vitest";
import { createLoader } from "nuqs/server";
import { pageOf, RUNS_PAGE_SIZE, runsSearchParams } from "./runs";

describe("the home page's pages of runs", () => {
  const runs = Array.from({ length: 2 * RUNS_PAGE_SIZE + 3 }, (_, i) => `run ${i}`);

  it("show at most a page of the sorted runs, the last page what is left", () => {
    expect(pageOf(runs, 1, RUNS_PAGE_SIZE)).toEqual({ rows: runs.slice(0, RUNS_PAGE_SIZE), page: 1, pages: 3 });
    expect(pageOf(runs, 3, RUNS_PAGE_SIZE).rows).toEqual(runs.slice(2 * RUNS_PAGE_SIZE));
  });

  it("clamp a page the URL asks for past the end, below 1 or not a number, and an empty list is page 1 of 1", () => {
    expect(pageOf(runs, 99, RUNS_PAGE_SIZE)).toMatchObject({ page: 3, rows: runs.slice(2 * RUNS_PAGE_SIZE) });
    expect(pageOf(runs, -4, RUNS_PAGE_SIZE).page).toBe(1);
    expect(pageOf(runs, Number.NaN, RUNS_PAGE_SIZE).page).toBe(1);
    expect(pageOf([], 2, RUNS_PAGE_SIZE)).toEqual({ rows: [], page: 1, pages: 1 });
  });

  it("read the page from the URL, 1 when it is absent or not a number", () => {
    const load = createLoader(runsSearchParams);
    expect(load("?page=2").page).toBe(2);
    expect(load("?page=two").page).toBe(1);
    expect(load("").page).toBe(1);
  });
});

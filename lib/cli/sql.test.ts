import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { runSqlCommand } from "./sql";

describe("metron sql tables --file", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-sql-cli-"));
  afterEach(() => vi.restoreAllMocks());

  it("answers one query per line, in order, a bad line as a result naming it", async () => {
    const file = path.join(dir, "q.jsonl");
    writeFileSync(
      file,
      [
        JSON.stringify("SELECT T2.name FROM konzert AS T1 JOIN stadion AS T2 ON T1.stadion_id = T2.stadion_id"),
        JSON.stringify({ id: "cte", sql: "WITH r(n) AS (SELECT 1) SELECT n FROM r JOIN sänger" }),
        "{oops",
        JSON.stringify({ id: "x" }),
        "",
      ].join("\n"),
    );
    const out: string[] = [];
    vi.spyOn(process.stdout, "write").mockImplementation((s) => (out.push(String(s)), true));
    const code = await runSqlCommand(["tables", "--file", file, "--json"]);
    const lines = out
      .join("")
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines).toEqual([
      { id: 1, tables: ["konzert", "stadion"], method: "scan" },
      { id: "cte", tables: ["sänger"], method: "scan" },
      { line: 3, error: expect.stringMatching(/^invalid JSON/) },
      { line: 4, id: "x", error: 'no "sql" or "query" string' },
    ]);
    expect(code).toBe(1); // some lines failed
    rmSync(dir, { recursive: true, force: true });
  });
});

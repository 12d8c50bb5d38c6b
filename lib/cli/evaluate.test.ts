import { readFileSync } from "node:fs";
import path from "node:path";
import { metron, ROOT } from "@/lib/testing/metron-cli";
import { describe, expect, it } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { chunksOf } from "@/lib/testing/db";
import { useEngineStore } from "@/lib/testing/engines";
import { jsonl } from "@/lib/testing/factories";
import { sharedData } from "@/lib/testing/shared-data";
import { many, qb } from "@/lib/db/typed";
import { codeStamp } from "@/scripts/code-stamp.mjs";

describe("metron evaluate on a run it cannot judge (issue 30)", () => {
  const store = useEngineStore("SQLite");

  it("says why each trace was not evaluated and what to do, one progress line per update, and exits 1", async () => {
    const line = (id: string) => ({
      run: { name: "unlinked", system: "s", model: "m" },
      question: { id, text: `Frage ${id}`, db_id: "concert_singer" },
      steps: [],
      final_sql: "SELECT 1",
    });
    const report = await ingestStream(store.sql, chunksOf(jsonl(line("1"), line("2"), line("3"))));
    const run = report.runs[0].id;
    const r = await metron(store.env, ["evaluate", "--run", run]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/not_evaluated: 3/);
    expect(r.out).toContain(
      `not evaluated, 3 traces: the run is not linked to a dataset: link it with metron run edit ${run} --dataset NAME`,
    );
    expect(r.out).not.toContain("simulated"); // a run of a model (lib/cli/simulated.test.ts: one that is not)
    expect(r.err).not.toMatch(/\r/); // not a terminal: lines, not carriage returns
    expect(r.err).toMatch(/^evaluated 3\/3$/m);
    const json = await metron(store.env, ["evaluate", "--run", run, "--json"]);
    expect(JSON.parse(json.out)).toMatchObject({
      simulated: false,
      not_evaluated: 3,
      not_evaluated_reasons: [{ reason: "the run is not linked to a dataset", traces: 3 }],
    });
  }, 60_000);
});

describe("metron ingest's report in words (issue 30)", () => {
  const store = useEngineStore("SQLite");

  it("counts in the right number, and says unlinked questions are not linked", async () => {
    // A real Claude Code session: three lines, one session, no dataset.
    const file = sharedData("traces", "claude-code", "session_b.jsonl");
    const r = await metron(store.env, ["ingest", file]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/1 inserted, 0 duplicates, 0 errors \(3 lines, /); // the file's lines, not its traces
    expect(r.out).toContain("1 question not linked to a dataset question");
    expect(r.out).not.toMatch(/by unlinked/);
    // The run's views computed ahead (issue 36), stamped as the server built from these sources stamps its own.
    // With the Experiments page's view of the runs without a dataset, which pools this run (no run has a dataset).
    expect(r.out).toMatch(
      /computed the views of 1 run\(s\) ahead in [\d.]+ s, and 1 view\(s\) of the Experiments page \(their pages read them\)/,
    );
    const stamp = codeStamp(ROOT);
    expect(readFileSync(path.join(ROOT, "dist", "cli", "code-stamp"), "utf8")).toBe(stamp);
    const views = await many(store.sql, qb(store.sql).selectFrom("derived_cache").select(["kind", "versions"]));
    expect(views.map((v) => v.kind).sort()).toEqual(["directive-savings", "facets", "overview", "tools", "units"]);
    for (const v of views) expect(v.versions.startsWith(`${stamp}|`)).toBe(true);
    // Ingesting again computes nothing more: the views of the run's version are there.
    const again = await metron(store.env, ["ingest", file]);
    expect(again.out).toMatch(/0 inserted, 1 duplicate, /);
    expect(again.out).not.toMatch(/computed the views/);
  }, 60_000);
});

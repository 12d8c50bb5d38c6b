import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getExperiment, loadOverview } from "@/lib/db/queries/overview";
import { getRunAggregates, listRunChanges, listRuns } from "@/lib/db/queries/runs";
import { csvResponse } from "@/lib/metrics/csv";
import { overviewTable } from "@/lib/metrics/exports";
import type { Sql } from "@/lib/db/sql";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, engineStore } from "@/lib/testing/engines";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { jsonl, makeStep } from "@/lib/testing/factories";
import { archiveRun, createExperiment, editRun, linkRunDataset, previewRoles, setRunRoles } from "./curate";
import { deleteRun } from "./remove";
import { ingestStream } from "./ingest";
import { many, one, raw } from "@/lib/db/typed";
import type { RawBuilder } from "kysely";

const big = "x".repeat(5000); // stored once in blobs
const trace = (run: object, id: string, extra: object = {}) => ({
  run,
  question: { id },
  final_sql: "SELECT count(*) FROM sänger",
  steps: [
    makeStep({ tool: "describe_table", args: { table_name: "sänger" } }),
    makeStep({ tool: "peek_table", args: { table: "konzert" }, result: big }),
    makeStep({ tool: "peek_table", args: { table: "stadion" } }),
  ],
  ...extra,
});
describe.each(ENGINES)("on the %s store", (engine) => {
  let sql: Sql;
  let cleanup: () => Promise<void>;
  beforeAll(async () => {
    const store = await engineStore(engine);
    ({ sql, cleanup } = store);
    await importSpiderDe(store);
  }, 60_000);
  afterAll(() => cleanup());
  const ingest = async (...lines: object[]) => (await ingestStream(sql, chunksOf(jsonl(...lines)))).runs[0].id;
  const count = async (table: string) =>
    Number((await one<{ n: number }>(sql, raw`SELECT count(*) AS n FROM ${raw.id(table)}`))!.n);

  describe("curating a run after upload", () => {
    it("unlinking a run takes the dataset's gold with it, though its benchmark still names the dataset (issue 30)", async () => {
      // Traces of their own (no shared result blob: the test below counts blobs).
      const own = (id: string) => ({
        run: { name: "linked by benchmark", system: "s", model: "m", benchmark: "spider-de" },
        question: { id },
        final_sql: "SELECT count(*) FROM sänger",
        steps: [makeStep({ tool: "describe_table", args: { table_name: "sänger" } })],
      });
      const runId = await ingest(own("22"), own("0"));
      const before = await getRunAggregates(sql, runId);
      expect(before.goldSum).toBe(2 + 1);
      await linkRunDataset(sql, runId, null, "alice");
      const after = await getRunAggregates(sql, runId);
      expect(after).toMatchObject({ goldSum: null, failedWithExtra: null });
      const rows = await many(
        sql,
        raw<
          Record<string, unknown>
        >`SELECT gold_sql, gold_count, over_exploration, extra_table_count FROM traces WHERE run_id = ${runId}`,
      );
      expect(rows.every((r) => r.gold_sql === null && r.gold_count === null && r.over_exploration === null)).toBe(true);
      // Linked again, the gold comes back.
      await linkRunDataset(sql, runId, "spider-de", "alice");
      expect((await getRunAggregates(sql, runId)).goldSum).toBe(3);
    });

    it("links a dataset, remaps roles with a preview, archives and deletes, recording each change", async () => {
      const runId = await ingest(
        trace({ name: "no dataset", system: "s", model: "m" }, "0"),
        trace({ name: "no dataset", system: "s", model: "m" }, "22"),
      );
      expect(await getRunAggregates(sql, runId)).toMatchObject({ goldSum: null, failedWithExtra: null });

      expect(await linkRunDataset(sql, runId, "spider-de", "alice")).toEqual({ traces: 2, linked: 2 });
      const linked = await getRunAggregates(sql, runId);
      expect(linked.goldSum).toBe(1 + 2); // question 0: sänger; 22: konzert, stadion
      expect(linked.exploratoryWithGold).toBe(2);

      const roles = { peek_table: "schema_exploration" as const };
      expect(await previewRoles(sql, runId, roles)).toMatchObject({
        changed: 4,
        tools: [{ tool: "peek_table", calls: 4, from: "other", to: "schema_exploration" }],
      });
      expect(await setRunRoles(sql, runId, roles, "alice")).toEqual({ changed: 4 });
      expect(
        (await one(
          sql,
          raw<
            Record<string, unknown>
          >`SELECT sum(calls_schema_exploration) AS n, sum(calls_other) AS o FROM traces WHERE run_id = ${runId}`,
        )) as { n: number; o: number },
      ).toEqual({ n: 6, o: 0 });

      expect(await editRun(sql, runId, { name: "renamed", tags: ["paper", " paper", "pilot"] }, "alice")).toEqual([
        'name: "no dataset" → "renamed"',
        "tags: paper, pilot",
      ]);
      await archiveRun(sql, runId, true, "alice");
      expect((await listRuns(sql, { sort: "name", dir: "asc" })).map((r) => r.id)).not.toContain(runId);
      expect((await listRuns(sql, { sort: "name", dir: "asc", archived: true })).map((r) => r.id)).toContain(runId);
      expect((await loadOverview(sql, {})).runIds).not.toContain(runId);
      expect((await listRunChanges(sql, runId)).map((c) => `${c.who}: ${c.change}`)).toEqual([
        "alice: archived",
        "alice: tags: paper, pilot",
        'alice: name: "no dataset" → "renamed"',
        "alice: tool roles: peek_table → schema_exploration (4 calls changed role)",
        "alice: linked to dataset spider-de: 2 of 2 traces linked to its questions",
      ]);

      const blobsBefore = await count("blobs");
      const other = await ingest(trace({ name: "keeps the blob", system: "s", model: "m" }, "1"));
      expect(await count("blobs")).toBe(blobsBefore); // the same result, stored once
      expect(await deleteRun(sql, runId)).toEqual({ traces: 2, steps: 6, blobs: 0 }); // still used by the other run
      expect(await deleteRun(sql, other)).toMatchObject({ traces: 1, blobs: 1 });
      expect(await count("blobs")).toBe(blobsBefore - 1);
      const left = async (query: RawBuilder<unknown>) => Number((await one<{ n: number }>(sql, query as never))!.n);
      expect(await left(raw`SELECT count(*) AS n FROM runs WHERE id IN (${runId}, ${other})`)).toBe(0);
      expect(await left(raw`SELECT count(*) AS n FROM traces WHERE run_id IN (${runId}, ${other})`)).toBe(0);
      expect(await left(raw`SELECT count(*) AS n FROM run_tool_counts WHERE run_id IN (${runId}, ${other})`)).toBe(0);
      expect(await left(raw`SELECT count(*) AS n FROM run_changes WHERE run_id IN (${runId}, ${other})`)).toBe(0);
      expect(await count("steps")).toBe(
        (
          (await one(
            sql,
            raw<Record<string, unknown>>`SELECT count(*) AS n FROM steps WHERE trace_id IN (SELECT id FROM traces)`,
          )) as {
            n: number;
          }
        ).n,
      );
      if (sql.connection) expect(sql.connection.pragma("integrity_check", { simple: true })).toBe("ok");
    });
    it("a renamed run: uploads under its old name join it and the report says so; a new run named like it is said apart; a rename onto another run's name is refused", async () => {
      const line = (name: string, q: string) => trace({ name, system: "s", model: "m" }, q);
      const upload = async (...lines: object[]) => (await ingestStream(sql, chunksOf(jsonl(...lines)))).runs;
      const [first] = await upload(line("before rename", "0"));
      expect(first.notice).toBeUndefined();
      await editRun(sql, first.id, { name: "after rename" }, "alice");
      const [joined] = await upload(line("before rename", "1"));
      expect(joined).toMatchObject({ id: first.id, name: "after rename", system: "s", model: "m" });
      expect(joined.notice).toMatch(/uploaded as "before rename".*renamed.*joined it/);
      const [apart] = await upload(line("after rename", "2"));
      expect(apart.id).not.toBe(first.id);
      expect(apart.notice).toContain(`run ${first.id} was renamed to the same name, system and model`);
      // The same look twice is not made by hand: a rename onto it is refused, and nothing changes.
      const [third] = await upload(line("third", "3"));
      await expect(editRun(sql, third.id, { name: "after rename" }, "alice")).rejects.toThrow(
        /is named "after rename" with system "s" and model "m" already: pick another name/,
      );
      expect((await listRunChanges(sql, third.id)).length).toBe(0);
      for (const r of [first, apart, third]) await deleteRun(sql, r.id);
    });
  });

  describe("experiments are explicit", () => {
    it("the default view pools the runs of a cell; a saved experiment's CSV is unchanged by new runs and reruns", async () => {
      const who = { system: "Sophrosyne", model: "gpt-x", benchmark: "spider-de" };
      const first = await ingest(trace({ name: "first", ...who }, "0"), trace({ name: "first", ...who }, "22"));
      const csvOf = async (runIds?: string[]) => {
        const { columns, rows } = overviewTable(
          (await loadOverview(sql, runIds ? { runIds } : { dataset: "spider-de" })).groups,
        );
        return csvResponse("x.csv", columns, rows).text();
      };
      const experiment = await createExperiment(sql, "paper table 3", [first, "no-such-run"]);
      const savedRuns = (await getExperiment(sql, experiment))!.runIds;
      expect(savedRuns).toEqual([first]);
      const saved = await csvOf(savedRuns);
      const second = await ingest(
        trace({ name: "second", ...who }, "1"),
        trace({ name: "second", ...who }, "22", { sample: 1 }),
      );
      await ingest(
        trace({ name: "Reruns", ...who, config: { reruns: true } }, "0", { sample: 5, outcome: { correct: true } }),
      );
      expect(await csvOf((await getExperiment(sql, experiment))!.runIds)).toBe(saved); // byte-identical

      const { groups } = await loadOverview(sql, { dataset: "spider-de" });
      const cell = groups[0].cells["gpt-x"]["Sophrosyne"];
      expect(cell.runs.map((r) => r.id)).toEqual([first, second]); // pooled, not replaced; the reruns stay out
      expect(cell.stats.questions).toBe(3); // 0, 22 (two samples) and 1
      expect(await csvOf()).toContain("first + second");
    });
  });
});

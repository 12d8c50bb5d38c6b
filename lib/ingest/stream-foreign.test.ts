import { readFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { sharedData } from "@/lib/testing/shared-data";
import { ingestAuto } from "./ingest-auto";
import { streamSpecFor } from "./stream-foreign";
import { many, one, raw } from "@/lib/db/typed";

const saved = process.env.METRON_MAX_FOREIGN_BYTES;
afterEach(() => {
  if (saved === undefined) delete process.env.METRON_MAX_FOREIGN_BYTES;
  else process.env.METRON_MAX_FOREIGN_BYTES = saved;
});

describe.each(ENGINES)("foreign files streamed element by element (%s store)", (engine) => {
  const store = useEngineStore(engine);

  it("reads a LiveSQLBench file far over the whole-read limit, one result at a time (the real sample, repeated)", async () => {
    const real = JSON.parse(
      readFileSync(sharedData("traces", "livesqlbench-adk", "single_turn_samples.json"), "utf8"),
    ) as {
      results: { instance_id: string }[];
    };
    // 300 results: the real three, 100 times over with distinct ids.
    const results = Array.from({ length: 100 }, (_, k) =>
      real.results.map((r) => ({ ...r, instance_id: `${r.instance_id}-${k}` })),
    ).flat();
    const text = JSON.stringify({ mode: "single_turn", results }, null, 1) + "\n";
    expect(streamSpecFor(text.slice(0, 65536))?.format).toBe("livesqlbench");
    process.env.METRON_MAX_FOREIGN_BYTES = "4096"; // read whole, the file would be refused
    const report = await ingestAuto(store.sql, chunksOf(text, 8192), {
      defaults: { name: "streamed lsb", system: "ADK", model: "gemini" },
    });
    expect(report).toMatchObject({ format: "livesqlbench", inserted: 300, error_count: 0 });
    const passed = (await one(
      store.sql,
      raw<
        Record<string, unknown>
      >`SELECT count(*) AS n FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = 'streamed lsb' AND recorded_correct = 1`,
    )) as { n: number };
    expect(passed.n).toBe(100); // one of the three real tasks passed, in each copy
  });

  it("streams an Inspect .json log's samples with the eval header read before them", async () => {
    const log = JSON.parse(
      readFileSync(path.join(__dirname, "..", "trace", "adapters", "fixtures", "inspect-sql.json"), "utf8"),
    ) as Record<string, unknown>;
    process.env.METRON_MAX_FOREIGN_BYTES = "4096";
    const report = await ingestAuto(store.sql, chunksOf(JSON.stringify(log), 1000), {
      defaults: { system: "react" },
    });
    expect(report).toMatchObject({ format: "inspect", inserted: 3, error_count: 0 });
    const models = await many(
      store.sql,
      raw<
        Record<string, unknown>
      >`SELECT DISTINCT r.model FROM traces t JOIN runs r ON r.id = t.run_id WHERE r.name = 'spider_sql_agent (R7fXq2)'`,
    );
    expect(models).toEqual([{ model: "openai/gpt-4o-mini" }]); // from the eval header, before the samples
  });

  it("reports a broken element by its position and keeps the others", async () => {
    const text = `{"results": [{"instance_id": "a", "tool_trajectory": []}, {"instance_id": "b", "tool_trajectory": 7}, {"instance_id": "c", "tool_trajectory": []}]}`;
    const report = await ingestAuto(store.sql, chunksOf(text, 16), {
      defaults: { name: "streamed broken", system: "s", model: "m" },
    });
    expect(report.inserted).toBe(2);
    expect(report.warnings.map((w) => w.line)).toContain(2);
  });
});

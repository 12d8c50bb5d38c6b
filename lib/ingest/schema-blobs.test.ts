import { describe, expect, it } from "vitest";
import { getStepDetail } from "@/lib/db/queries/steps";
import { many, raw } from "@/lib/db/typed";
import { loadQuestionFrom } from "@/lib/environment/database-info";
import { SqlEnvironment } from "@/lib/environment/tools";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { importBirdMiniDev } from "@/lib/testing/bird-minidev";
import { serializeTrace } from "@/lib/trace/hash";
import { normalizeStep, normalizeTrace } from "@/lib/trace/normalize";
import { traceLineSchema } from "@/lib/trace/schema";
import { ingestStream } from "./ingest";
import { BLOB_THRESHOLD, SCHEMA_BLOB_MIN } from "./prepare";
import { deleteTraces } from "./remove";

describe.each(ENGINES)("schema results stored once (%s store)", (engine) => {
  const store = useEngineStore(engine, async (s) => importBirdMiniDev(s));

  /** Real tool results: the environment's tools on BIRD mini-dev's financial database, as an agent calls them. */
  async function session(sample: number): Promise<Record<string, unknown>> {
    const { question, database } = await loadQuestionFrom(store.sql, "bird", "100");
    const env = new SqlEnvironment(question, database, { variant: "none", directives: null });
    await env.call("list_tables", {});
    for (const t of ["account", "district", "loan", "order", "trans"])
      await env.call("describe_table", { table_name: t });
    await env.call("read_query", { query: "SELECT count(*) FROM loan" });
    await env.call("submit_final_query", { query: question.goldSql });
    await env.close();
    return { ...env.trace(), sample, run: { name: "schema blobs", system: "agent", model: "m" } };
  }

  it("keeps each described table's text once across traces, reads it back whole, and frees it with its last trace", async () => {
    const traces = [await session(0), await session(1)];
    const describes = traces[0].steps as { tool: string; args: { table_name?: string }; result: string }[];
    const long = describes.filter((s) => s.tool === "describe_table" && s.result.length >= SCHEMA_BLOB_MIN);
    // The case this is about: real descriptions between the schema threshold and the general one.
    expect(long.map((s) => s.args.table_name)).toEqual(["district", "loan", "order", "trans"]);
    expect(long.every((s) => s.result.length < BLOB_THRESHOLD)).toBe(true);

    const report = await ingestStream(store.sql, chunksOf(traces.map((t) => JSON.stringify(t)).join("\n"), 4096));
    expect(report.inserted).toBe(2);
    const rows = await many(
      store.sql,
      raw<{ trace_id: string; seq: number; tool: string; result: string | null; blob: string | null; size: number }>`
        SELECT trace_id, seq, tool, result, result_blob AS blob, result_size AS size FROM steps ORDER BY trace_id, seq`,
    );
    const byBlob = rows.filter((r) => r.blob !== null);
    // Each long description by reference, in both traces; the probe's result (data, not schema) stays inline.
    expect(byBlob.map((r) => r.tool).every((t) => t === "describe_table")).toBe(true);
    expect(byBlob).toHaveLength(long.length * 2);
    expect(rows.find((r) => r.tool === "read_query")!.blob).toBeNull();
    const blobs = await many(store.sql, raw<{ n: number }>`SELECT count(*) AS n FROM blobs`);
    expect(Number(blobs[0].n)).toBe(long.length);

    // What the question page shows is the tool's text, whole, with its size.
    for (const r of byBlob) {
      const detail = await getStepDetail(store.sql, r.trace_id, r.seq);
      const original = describes[r.seq].result;
      expect(detail?.result).toBe(JSON.stringify(original));
      expect(r.size).toBe(JSON.stringify(original).length);
    }

    // A trace's identity does not depend on how its results are stored: the same file again is all duplicates.
    const identities = traces.map((t) => {
      const { steps, ...header } = traceLineSchema.parse(t);
      return serializeTrace(normalizeTrace(header, steps.map(normalizeStep)), BLOB_THRESHOLD).id;
    });
    expect(new Set(rows.map((r) => r.trace_id))).toEqual(new Set(identities));
    const again = await ingestStream(store.sql, chunksOf(traces.map((t) => JSON.stringify(t)).join("\n"), 4096));
    expect(again.duplicates).toBe(2);

    // Removing one trace keeps the shared texts; removing the other frees them.
    const ids = [...new Set(rows.map((r) => r.trace_id))];
    const runId = (await many(store.sql, raw<{ run_id: string }>`SELECT run_id FROM traces LIMIT 1`))[0].run_id;
    await deleteTraces(store.sql, runId, [ids[0]]);
    expect(Number((await many(store.sql, raw<{ n: number }>`SELECT count(*) AS n FROM blobs`))[0].n)).toBe(long.length);
    await deleteTraces(store.sql, runId, [ids[1]]);
    expect(Number((await many(store.sql, raw<{ n: number }>`SELECT count(*) AS n FROM blobs`))[0].n)).toBe(0);
  });
});

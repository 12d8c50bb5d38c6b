import { describe, expect, it } from "vitest";
import { ingestStream } from "@/lib/ingest/ingest";
import { metron } from "@/lib/testing/metron-cli";
import { chunksOf } from "@/lib/testing/db";
import { useEngineStore } from "@/lib/testing/engines";
import { jsonl, makeTraceLine } from "@/lib/testing/factories";

describe("metron search's lines", () => {
  const store = useEngineStore("SQLite");

  it("label simulated runs and say a recorded outcome is recorded, as the pages do", async () => {
    const question = (id: string) => ({ id, db_id: "concert_singer", text: `How many singers in hall ${id}?` });
    await ingestStream(
      store.sql,
      chunksOf(
        jsonl(
          makeTraceLine({
            run: { name: "sim run", system: "No Directives", model: "sim-careful", config: { simulated: true } },
            question: question("1"),
            outcome: { correct: true },
          }),
          makeTraceLine({
            run: { name: "real run", system: "No Directives", model: "gpt-test" },
            question: question("2"),
            outcome: { correct: false },
          }),
          makeTraceLine({
            run: { name: "bare run", system: "No Directives", model: "gpt-test" },
            question: question("3"),
          }),
        ),
      ),
    );
    const r = await metron(store.env, ["search", "singers"]);
    expect(r.code).toBe(0);
    const lines = r.out.split("\n");
    expect(lines).toContain("sim run · No Directives · sim-careful (simulated) · question 1#0 (correct (recorded))");
    expect(lines).toContain("real run · No Directives · gpt-test · question 2#0 (wrong (recorded))");
    expect(lines).toContain("bare run · No Directives · gpt-test · question 3#0 (not evaluated)");
    const json = JSON.parse((await metron(store.env, ["search", "singers", "--json"])).out) as {
      hits: { run: string; simulated: boolean }[];
    };
    expect(Object.fromEntries(json.hits.map((h) => [h.run, h.simulated]))).toEqual({
      "sim run": true,
      "real run": false,
      "bare run": false,
    });
  }, 60_000);
});

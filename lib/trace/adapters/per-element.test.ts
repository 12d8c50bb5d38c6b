/** One bad element of a foreign file fails alone, with its position; its neighbours are stored (issue 28). */
import { readFileSync } from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { describe, expect, it } from "vitest";
import { ingestAuto } from "@/lib/ingest/ingest-auto";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { adapt } from "./index";

const fixture = (name: string) => JSON.parse(readFileSync(path.join(__dirname, "fixtures", name), "utf8"));
/** JSON text of a value nested past what a recursive walk over it (JSON.stringify, a resolver) can take. */
const DEEP = "[".repeat(100_000) + "]".repeat(100_000);
/** `value` as JSON text with the string "@DEEP@" replaced by the deep value. */
const withDeep = (value: unknown) => JSON.stringify(value).replace('"@DEEP@"', DEEP);

describe("a foreign file with one element nested past the stack", () => {
  it("an Inspect log keeps its other samples and names the bad one", () => {
    const log = fixture("inspect-sql.json");
    log.samples[1].metadata = { nested: "@DEEP@" }; // attachments are resolved by walking every value
    const { traces, warnings } = adapt(withDeep(log), "inspect");
    expect(traces).toHaveLength(2);
    expect(warnings).toEqual([
      { line: 2, message: expect.stringMatching(/^sample 2 could not be read, the others were: .*call stack/) },
    ]);
  });

  describe.each(ENGINES)("ATIF trajectories uploaded to the %s store", (engine) => {
    const store = useEngineStore(engine);
    it("store the good ones and report the bad one by its position", async () => {
      const one = fixture("atif-sql.json");
      const list = [0, 1, 2].map((i) => structuredClone({ ...one, session_id: `${one.session_id}-${i}` }));
      list[1].steps[2].tool_calls[0].arguments = { nested: "@DEEP@" }; // a tool call's arguments: stored as given
      const report = await ingestAuto(store.sql, Readable.from([Buffer.from(withDeep(list))]), {
        format: "atif",
        defaults: { name: "atif nesting", system: "sql-react" },
      });
      expect(report).toMatchObject({ format: "atif", inserted: 2, error_count: 1 });
      expect(report.errors).toEqual([
        { line: 2, message: expect.stringMatching(/^adapted trace 2 could not be stored: .*call stack/) },
      ]);
    });
  });
});

/** CSV downloads streamed from a source: a batch at a time, formulas escaped, the source closed when the client goes. */
import { describe, expect, it } from "vitest";
import { csvResponse } from "./csv";
describe("csvResponse from an async source", () => {
  it("reads the next batch only when the client takes it, and stops the source when the client goes", async () => {
    let produced = 0;
    let closed = false;
    async function* rows() {
      try {
        for (let i = 0; i < 10_000; i++) {
          produced++;
          yield [i, `=cmd ${i}`];
        }
      } finally {
        closed = true;
      }
    }
    const response = csvResponse("x.csv", ["n", "text"], rows());
    const reader = response.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    expect(first.split("\r\n")[0]).toBe("n,text");
    expect(first).toContain("'=cmd 0"); // formulas escaped
    expect(produced).toBeLessThan(2_000); // a batch or two, not the export
    await reader.cancel();
    expect(closed).toBe(true);
  });
});

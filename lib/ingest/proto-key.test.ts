import { describe, expect, it } from "vitest";
import { chunksOf } from "@/lib/testing/db";
import { ENGINES, useEngineStore } from "@/lib/testing/engines";
import { ingestStream } from "./ingest";

describe.each(ENGINES)("a key that cannot be a field (%s store)", (engine) => {
  const store = useEngineStore(engine);
  it('stores the line and says in the report that its "__proto__" key was left out (issue 28)', async () => {
    const line = (i: number, meta: string) =>
      `{"run":{"name":"proto","system":"s","model":"m"},"question":{"id":"${i}"},"steps":[],"final_sql":"SELECT ${i}","meta":${meta}}`;
    const text = [line(1, '{"ok":1}'), line(2, '{"__proto__":{"polluted":true},"kept":2}')].join("\n") + "\n";
    const report = await ingestStream(store.sql, chunksOf(text, 64), { source: "cli" });
    expect(report).toMatchObject({ inserted: 2, error_count: 0 });
    expect(report.warnings).toEqual([{ line: 2, message: expect.stringMatching(/"__proto__" was left out/) }]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined(); // and nothing reached Object.prototype
  });
});

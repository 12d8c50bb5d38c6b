/**
 * A message's blobs cross between the ingest's threads once each (shareBlobs / resolveBlobs): what the reader gets
 * back after the structured clone is what the worker prepared, on traces prepared from real Spider-de lines.
 */
import { deserialize, serialize } from "node:v8";
import { expect, it } from "vitest";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { realisticLines } from "@/lib/testing/realistic-traces";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { storeLookups, TraceMeasurer } from "./measure";
import { prepareTrace } from "./prepare";
import { readTraces } from "./read-traces";
import { runRoles } from "./sqlite-writer";
import { resolveBlobs, shareBlobs, type WorkerItem } from "./worker-protocol";

/**
 * The items the worker would post for Spider-de's realistic lines and the same lines run again by a second model
 * (whose traces describe the same tables: the same schema results, so the same blobs), read and prepared as the
 * worker does.
 */
async function preparedItems(): Promise<WorkerItem[]> {
  const t = tempDb();
  try {
    await importSpiderDe(t);
    const measurer = new TraceMeasurer(storeLookups(t.db.$client));
    const roles = runRoles(t.db.$client);
    const items: WorkerItem[] = [];
    await readTraces(
      chunksOf(realisticLines() + realisticLines().replaceAll("gpt-test", "gpt-second"), 4096),
      { fallbackName: "upload", maxLineBytes: 1 << 20 },
      { bytes: 0, lines: 0 },
      {
        trace: (trace, line) =>
          void items.push({ kind: "trace", line, prepared: prepareTrace(trace, measurer, roles), caveat: null }),
        fail: (line, message) => void items.push({ kind: "fail", line, message }),
        warn: (line, message) => void items.push({ kind: "warn", line, message }),
      },
    );
    measurer.close();
    return items;
  } finally {
    t.cleanup();
  }
}

it("sends each blob's content once a message and gives the reader back every trace's blobs", async () => {
  const items = await preparedItems();
  const before = structuredClone(items);
  const refs = items.flatMap((i) => (i.kind === "trace" ? i.prepared.blobs : []));
  const distinct = new Set(refs.map(([hash]) => hash));
  expect(distinct.size).toBeGreaterThan(0);
  expect(refs.length).toBeGreaterThan(distinct.size); // real traces describe the same tables again

  shareBlobs(items);
  const sent = items.flatMap((i) => (i.kind === "trace" ? i.prepared.blobs : []));
  expect(sent.filter(([, content]) => content !== null)).toHaveLength(distinct.size);
  const wire = serialize(items);
  expect(wire.length).toBeLessThan(serialize(before).length);

  expect(resolveBlobs(deserialize(wire) as WorkerItem[])).toEqual(before);
});

it("refuses a message that names a blob none of its traces carries", async () => {
  const items = (await preparedItems()).filter((i) => i.kind === "trace" && i.prepared.blobs.length > 0);
  shareBlobs(items);
  const later = items.find((i) => i.kind === "trace" && i.prepared.blobs.some(([, c]) => c === null))!;
  expect(later).toBeDefined();
  expect(() => resolveBlobs([later])).toThrow(/sent blob [0-9a-f]{64} without its content/);
});

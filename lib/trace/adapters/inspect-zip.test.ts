import { readFileSync } from "node:fs";
import path from "node:path";
import { deflateRawSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { zipOf, zstdRawFrame, zstdRleFrame } from "@/lib/testing/zip";
import { ArchiveLimitError, evalZipToLog } from "./inspect-zip";

const header = Buffer.from(JSON.stringify({ version: 2, eval: { task: "sql", model: "m" } }));
const limits = { maxDecodedBytes: 8 * 1024 * 1024, maxMembers: 100 };
const MB = 1024 * 1024;

describe("an .eval's decoders are bounded by what they produce, not by what a header claims (issue 28)", () => {
  it("stops a deflate bomb whose headers claim a small member at the decoded limit, naming it", async () => {
    const bomb = deflateRawSync(Buffer.alloc(64 * MB, 0x20));
    const zip = zipOf([
      { name: "header.json", method: 0, data: header },
      { name: "samples/1_epoch_1.json", method: 8, data: bomb, declaredSize: 100 },
    ]);
    await expect(evalZipToLog(zip, limits)).rejects.toThrow(
      /samples\/1_epoch_1\.json: .*over 8388608 bytes \(METRON_MAX_DECODED_BYTES\)/,
    );
  });

  it("stops a Zstandard bomb of RLE blocks (7 GB from 220 kB) at the limit, without decoding it all", async () => {
    const bomb = zstdRleFrame(7 * 1024 * MB);
    expect(bomb.length).toBeLessThan(240_000);
    const zip = zipOf([
      { name: "header.json", method: 0, data: header },
      { name: "samples/1_epoch_1.json", method: 93, data: bomb, declaredSize: 10 },
    ]);
    const before = process.memoryUsage().rss;
    await expect(evalZipToLog(zip, limits)).rejects.toBeInstanceOf(ArchiveLimitError);
    expect(process.memoryUsage().rss - before).toBeLessThan(256 * MB);
  });

  it("refuses a Zstandard frame that declares more than the limit, or a window no decoder accepts, before allocating", async () => {
    const declared = zipOf([
      { name: "header.json", method: 0, data: header },
      { name: "samples/1.json", method: 93, data: zstdRleFrame(1024, 0x20, { declaredSize: 2 ** 31 - 1 }) },
    ]);
    await expect(evalZipToLog(declared, limits)).rejects.toThrow(/METRON_MAX_DECODED_BYTES/);
    const window = zipOf([
      { name: "header.json", method: 0, data: header },
      { name: "samples/1.json", method: 93, data: zstdRleFrame(1024, 0x20, { window: 2 ** 30 }) },
    ]);
    await expect(evalZipToLog(window, limits)).rejects.toThrow(/window/);
  });

  it("counts the limit over all members together, and caps their number", async () => {
    const member = (i: number) => ({ name: `samples/${i}.json`, method: 0, data: Buffer.alloc(3 * MB, 0x20) });
    const many = zipOf([{ name: "header.json", method: 0, data: header }, member(1), member(2), member(3)]);
    await expect(evalZipToLog(many, limits)).rejects.toThrow(/samples\/3\.json/);
    const members = zipOf(
      Array.from({ length: 101 }, (_, i) => ({ name: `other/${i}.txt`, method: 0, data: Buffer.from("x") })),
    );
    await expect(evalZipToLog(members, limits)).rejects.toThrow(/over 100 members \(METRON_MAX_ARCHIVE_MEMBERS\)/);
  });

  it("still reads valid members of each method within the limit", async () => {
    const sample = JSON.stringify({ id: 1, epoch: 1, input: "Wie viele Sänger?", messages: [] });
    const zip = zipOf([
      { name: "header.json", method: 8, data: deflateRawSync(header) },
      { name: "samples/1_epoch_1.json", method: 93, data: zstdRawFrame(Buffer.from(sample)) },
      { name: "samples/2_epoch_1.json", method: 0, data: Buffer.from(sample.replace('"id":1', '"id":2')) },
    ]);
    const log = await evalZipToLog(zip, limits);
    expect(log.eval).toEqual({ task: "sql", model: "m" });
    expect((log.samples as { id: number }[]).map((s) => s.id)).toEqual([1, 2]);
    // And the real Inspect fixtures, under the default limits.
    const real = await evalZipToLog(readFileSync(path.join(__dirname, "fixtures", "inspect-sql.eval")));
    expect((real.samples as unknown[]).length).toBe(3);
  });
});

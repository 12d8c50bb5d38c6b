/**
 * Inspect's `.eval` logs are zip files: `header.json` (the eval, plan, results and stats), `samples/<id>_epoch_<n>.json`
 * (one EvalSample each) and summaries. Recent Inspect writes the members with Zstandard (zip method 93), older ones
 * with deflate. Read with yauzl (members are taken raw and inflated or Zstandard-decoded here: yauzl itself knows
 * only deflate) and fzstd; the result is the same object as a `.json` log, for the one Inspect adapter.
 */
import { inflateRawSync } from "node:zlib";
import { decompress as zstdDecompress } from "fzstd";
import yauzl from "yauzl";

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const STORED = 0;
const DEFLATE = 8;
const ZSTANDARD = 93;

export const isZip = (bytes: Uint8Array) => ZIP_MAGIC.every((b, i) => bytes[i] === b);

/** Limits against a zip bomb: members and their decoded size. */
const MAX_MEMBER_BYTES = 1024 * 1024 * 1024;

function readMembers(bytes: Buffer, wanted: (name: string) => boolean): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error("not a zip file"));
      const members = new Map<string, Buffer>();
      zip.on("error", reject);
      zip.on("end", () => resolve(members));
      zip.on("entry", (entry: yauzl.Entry) => {
        if (!wanted(entry.fileName) || entry.uncompressedSize > MAX_MEMBER_BYTES) return zip.readEntry();
        // Raw member bytes (decodeFileData: false), decoded below by their method.
        const open = (cb: (e: Error | null, stream?: NodeJS.ReadableStream) => void) => {
          try {
            zip.openReadStream(entry, { decodeFileData: false } as yauzl.ZipFileOptions, cb);
          } catch (x) {
            cb(x as Error);
          }
        };
        open((e, stream) => {
          if (e || !stream) return reject(e ?? new Error(`cannot read ${entry.fileName}`));
          const chunks: Buffer[] = [];
          stream.on("data", (c: Buffer) => chunks.push(c));
          stream.on("error", reject);
          stream.on("end", () => {
            const raw = Buffer.concat(chunks);
            try {
              members.set(entry.fileName, decode(raw, entry.compressionMethod, entry.fileName));
            } catch (x) {
              return reject(x);
            }
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

function decode(raw: Buffer, method: number, name: string): Buffer {
  if (method === STORED) return raw;
  if (method === DEFLATE) return inflateRawSync(raw);
  if (method === ZSTANDARD) return Buffer.from(zstdDecompress(raw));
  throw new Error(`${name}: zip compression method ${method} is neither stored, deflate nor Zstandard`);
}

/** An `.eval` file as the object a `.json` log holds: the header's fields, and `samples` in file order. */
export async function evalZipToLog(bytes: Buffer): Promise<Record<string, unknown>> {
  const members = await readMembers(bytes, (n) => n === "header.json" || /^samples\/.+\.json$/.test(n));
  const header = members.get("header.json");
  if (!header) throw new Error("an .eval file without header.json (is it an Inspect log?)");
  const log = JSON.parse(header.toString("utf8")) as Record<string, unknown>;
  const samples = [...members]
    .filter(([name]) => name.startsWith("samples/"))
    .map(([, body]) => JSON.parse(body.toString("utf8")) as unknown);
  return { ...log, samples };
}

/**
 * Inspect's `.eval` logs are zip files: `header.json` (the eval, plan, results and stats), `samples/<id>_epoch_<n>.json`
 * (one EvalSample each) and summaries. Recent Inspect writes the members with Zstandard (zip method 93), older ones
 * with deflate. Read with yauzl (members are taken raw and inflated or Zstandard-decoded here: yauzl itself knows
 * only deflate) and fzstd; the result is the same object as a `.json` log, for the one Inspect adapter.
 *
 * Decoding is bounded by what it produces, never by what a header claims (issue 28): the decoded members of one
 * file together stop at `maxDecodedBytes`, a Zstandard frame must declare a window the reference decoder would
 * accept (≤ 128 MB) before anything is allocated for it, and the member count is capped. A member is decoded
 * twice: first only counted (nothing kept, so a bomb leaves no heap to collect), then kept once it is known to fit.
 * Deflate runs on libuv's thread pool and Zstandard yields to the event loop every few milliseconds, so a large
 * log does not hold the server.
 */
import { promisify } from "node:util";
import { inflateRaw } from "node:zlib";
import { Worker } from "node:worker_threads";
import { Decompress } from "fzstd";
import yauzl from "yauzl";
import { positiveNumber } from "@/lib/config/env";

const ZIP_MAGIC = [0x50, 0x4b, 0x03, 0x04];
const STORED = 0;
const DEFLATE = 8;
const ZSTANDARD = 93;

export const isZip = (bytes: Uint8Array) => ZIP_MAGIC.every((b, i) => bytes[i] === b);

/** A decoder or size limit hit: the message names the member, the limit and its variable. */
export class ArchiveLimitError extends Error {}

export interface ArchiveLimits {
  /** All decoded members of one file together (METRON_MAX_DECODED_BYTES, default 256 MB). */
  maxDecodedBytes: number;
  /** Members read from one file (METRON_MAX_ARCHIVE_MEMBERS, default 100,000). */
  maxMembers: number;
}

export function archiveLimits(): ArchiveLimits {
  return {
    maxDecodedBytes: positiveNumber("METRON_MAX_DECODED_BYTES", 256 * 1024 * 1024),
    maxMembers: positiveNumber("METRON_MAX_ARCHIVE_MEMBERS", 100_000),
  };
}

const inflateRawAsync = promisify(inflateRaw);
const overDecoded = (name: string, limits: ArchiveLimits) =>
  new ArchiveLimitError(
    `${name}: the decoded log is over ${limits.maxDecodedBytes} bytes (METRON_MAX_DECODED_BYTES): a compression bomb, or a log to raise the limit for`,
  );

/** The Zstandard reference decoder's default window limit (ZSTD_WINDOWLOG_LIMIT_DEFAULT = 27). */
const ZSTD_MAX_WINDOW = 2 ** 27;
const ZSTD_MAGIC = 0xfd2fb528;

/**
 * Walks the Zstandard frames of a member without decoding them and refuses one whose window, or declared size,
 * would make the decoder allocate more than it may produce (fzstd allocates the window up front), or whose raw and
 * RLE blocks alone (their sizes are exact) already decode to more than it may.
 */
function checkZstdFrames(raw: Buffer, name: string, budget: number, limits: ArchiveLimits): void {
  let at = 0;
  let exact = 0;
  while (at + 4 <= raw.length) {
    const magic = raw.readUInt32LE(at);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      // A skippable frame: its size follows.
      if (at + 8 > raw.length) break;
      at += 8 + raw.readUInt32LE(at + 4);
      continue;
    }
    if (magic !== ZSTD_MAGIC) throw new ArchiveLimitError(`${name}: not a Zstandard frame at byte ${at}`);
    const flags = raw[at + 4];
    const singleSegment = (flags >> 5) & 1;
    const checksum = (flags >> 2) & 1;
    const dictBytes = [0, 1, 2, 4][flags & 3];
    const fcsField = flags >> 6;
    const fcsBytes = fcsField ? 1 << fcsField : singleSegment;
    let p = at + 5;
    let window = 0;
    if (!singleSegment) {
      const wd = raw[p++];
      const base = 2 ** (10 + (wd >> 3));
      window = base + (base / 8) * (wd & 7);
    }
    p += dictBytes;
    let declared = 0;
    for (let i = 0; i < fcsBytes; i++) declared += raw[p + i] * 2 ** (8 * i);
    if (fcsField === 1) declared += 256;
    p += fcsBytes;
    if (singleSegment) window = declared;
    if (declared > budget || (singleSegment && window > budget)) throw overDecoded(name, limits);
    if (window > ZSTD_MAX_WINDOW)
      throw new ArchiveLimitError(
        `${name}: a Zstandard frame asks for a ${window}-byte window, over the ${ZSTD_MAX_WINDOW} bytes a decoder accepts by default`,
      );
    // Blocks: a 3-byte header each (last flag, type, size); RLE blocks hold one byte.
    for (;;) {
      if (p + 3 > raw.length) throw new ArchiveLimitError(`${name}: a Zstandard frame is cut short`);
      const header = raw[p] | (raw[p + 1] << 8) | (raw[p + 2] << 16);
      const last = header & 1;
      const type = (header >> 1) & 3;
      const size = header >>> 3;
      if (type === 3) throw new ArchiveLimitError(`${name}: a reserved Zstandard block type`);
      if (type !== 2 && (exact += size) > budget) throw overDecoded(name, limits);
      p += 3 + (type === 1 ? 1 : size);
      if (last) break;
    }
    at = p + (checksum ? 4 : 0);
  }
}

// Small input slices (an RLE block of 4 bytes decodes to 128 KB), and a turn of the event loop every few ms.
const SLICE = 1024;
const TURN_MS = 15;

/** One pass of the Zstandard decoder over a member: counting only, or keeping the output. */
async function zstdPass(raw: Buffer, name: string, budget: number, limits: ArchiveLimits, keep: boolean) {
  const out: Uint8Array[] = [];
  let produced = 0;
  const stream = new Decompress((chunk) => {
    produced += chunk.length;
    if (produced > budget) throw overDecoded(name, limits);
    if (keep) out.push(chunk);
  });
  let turned = performance.now();
  for (let i = 0; i < raw.length; i += SLICE) {
    stream.push(raw.subarray(i, i + SLICE), i + SLICE >= raw.length);
    if (performance.now() - turned > TURN_MS) {
      await new Promise((r) => setImmediate(r)); // the event loop turns between slices
      turned = performance.now();
    }
  }
  return keep ? Buffer.concat(out) : Buffer.alloc(0);
}

async function zstdDecode(raw: Buffer, name: string, budget: number, limits: ArchiveLimits): Promise<Buffer> {
  checkZstdFrames(raw, name, budget, limits);
  await zstdPass(raw, name, budget, limits, false); // counted first: a bomb keeps nothing
  return zstdPass(raw, name, budget, limits, true);
}

/**
 * Counts what a deflate member decodes to in a worker thread of its own, keeping nothing: the output's garbage is
 * the worker's to collect, so a bomb does not pause the server's event loop with collections of its heap. The
 * worker's code is inline (no file to bundle); it stops as soon as the count passes `budget`.
 */
const COUNT_INFLATED = `
const { parentPort, workerData } = require("node:worker_threads");
const zlib = require("node:zlib");
const { raw, budget } = workerData;
let size = 0;
let done = false;
const inflater = zlib.createInflateRaw({ chunkSize: 1 << 20 });
inflater.on("data", (chunk) => {
  size += chunk.length;
  if (size > budget && !done) { done = true; parentPort.postMessage({ over: true }); inflater.destroy(); }
});
inflater.on("error", (e) => { if (!done) { done = true; parentPort.postMessage({ error: e.message }); } });
inflater.on("end", () => { if (!done) { done = true; parentPort.postMessage({ size }); } });
inflater.end(Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength));
`;

function inflatedSize(raw: Buffer, name: string, budget: number, limits: ArchiveLimits): Promise<number> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(COUNT_INFLATED, { eval: true, workerData: { raw: new Uint8Array(raw), budget } });
    worker.once("message", (m: { over?: boolean; error?: string; size?: number }) => {
      void worker.terminate();
      if (m.over) reject(overDecoded(name, limits));
      else if (m.error !== undefined) reject(new ArchiveLimitError(`${name}: deflate: ${m.error}`));
      else resolve(m.size ?? 0);
    });
    worker.once("error", (e: Error) => reject(new ArchiveLimitError(`${name}: deflate: ${e.message}`)));
  });
}

async function decode(raw: Buffer, method: number, name: string, budget: number, limits: ArchiveLimits) {
  if (method === STORED) {
    if (raw.length > budget) throw overDecoded(name, limits);
    return raw;
  }
  if (method === DEFLATE) {
    await inflatedSize(raw, name, budget, limits); // counted first, in a worker: a bomb keeps nothing here
    try {
      // Large output chunks: fewer callbacks and fewer objects for the collector than the default 16 kB.
      return await inflateRawAsync(raw, { maxOutputLength: Math.max(1, budget), chunkSize: 1024 * 1024 });
    } catch (e) {
      if ((e as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw overDecoded(name, limits);
      throw new ArchiveLimitError(`${name}: deflate: ${(e as Error).message}`);
    }
  }
  if (method === ZSTANDARD) return zstdDecode(raw, name, budget, limits);
  throw new ArchiveLimitError(`${name}: zip compression method ${method} is neither stored, deflate nor Zstandard`);
}

function readMembers(
  bytes: Buffer,
  wanted: (name: string) => boolean,
  limits: ArchiveLimits,
): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true, decodeStrings: true }, (err, zip) => {
      if (err || !zip) return reject(err ?? new Error("not a zip file"));
      const members = new Map<string, Buffer>();
      let decoded = 0;
      let seen = 0;
      zip.on("error", reject);
      zip.on("end", () => resolve(members));
      zip.on("entry", (entry: yauzl.Entry) => {
        if (++seen > limits.maxMembers) {
          zip.close();
          return reject(
            new ArchiveLimitError(`the archive has over ${limits.maxMembers} members (METRON_MAX_ARCHIVE_MEMBERS)`),
          );
        }
        if (!wanted(entry.fileName)) return zip.readEntry();
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
            decode(
              Buffer.concat(chunks),
              entry.compressionMethod,
              entry.fileName,
              limits.maxDecodedBytes - decoded,
              limits,
            )
              .then((body) => {
                decoded += body.length;
                members.set(entry.fileName, body);
                zip.readEntry();
              })
              .catch((x: unknown) => {
                zip.close();
                reject(x);
              });
          });
        });
      });
      zip.readEntry();
    });
  });
}

/** An `.eval` file as the object a `.json` log holds: the header's fields, and `samples` in file order. */
export async function evalZipToLog(
  bytes: Buffer,
  limits: ArchiveLimits = archiveLimits(),
): Promise<Record<string, unknown>> {
  const members = await readMembers(bytes, (n) => n === "header.json" || /^samples\/.+\.json$/.test(n), limits);
  const header = members.get("header.json");
  if (!header) throw new Error("an .eval file without header.json (is it an Inspect log?)");
  const log = JSON.parse(header.toString("utf8")) as Record<string, unknown>;
  const samples = [...members]
    .filter(([name]) => name.startsWith("samples/"))
    .map(([, body]) => JSON.parse(body.toString("utf8")) as unknown);
  return { ...log, samples };
}

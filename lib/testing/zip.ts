/**
 * Zip archives made byte by byte for the tests of the `.eval` reader: members with any method, raw bytes and
 * declared sizes (a bomb lies about them), and Zstandard frames of RLE blocks (Node 20 has no Zstandard encoder;
 * RLE blocks are the spec's own run-length form, four bytes for each 128 KB they decode to).
 */
import { crc32 } from "node:zlib";

export interface ZipMember {
  name: string;
  method: number;
  /** The member's bytes as stored (compressed by `method`). */
  data: Buffer;
  /** What the headers claim the member decodes to (the truth when omitted and stored). */
  declaredSize?: number;
}

export function zipOf(members: ZipMember[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const m of members) {
    const name = Buffer.from(m.name, "utf8");
    const size = m.declaredSize ?? m.data.length;
    const crc = m.method === 0 ? crc32(m.data) : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(m.method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(m.data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(m.method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(m.data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, m.data);
    centrals.push(central, name);
    offset += local.length + name.length + m.data.length;
  }
  const dir = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(members.length, 8);
  end.writeUInt16LE(members.length, 10);
  end.writeUInt32LE(dir.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, dir, end]);
}

const BLOCK = 128 * 1024;

/**
 * One Zstandard frame that decodes to `bytes` copies of `byte` in RLE blocks. `window` is the window the frame
 * declares (a power of two ≥ 1 KB; default 1 MB); `declaredSize` puts a content size in a single-segment header.
 */
export function zstdRleFrame(bytes: number, byte = 0x20, opts: { window?: number; declaredSize?: number } = {}) {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd])];
  if (opts.declaredSize !== undefined) {
    // Single segment, an 8-byte content size.
    const header = Buffer.alloc(9);
    header[0] = (3 << 6) | (1 << 5);
    header.writeBigUInt64LE(BigInt(opts.declaredSize), 1);
    parts.push(header);
  } else {
    const exponent = Math.log2(opts.window ?? 2 ** 20) - 10;
    parts.push(Buffer.from([0, exponent << 3]));
  }
  for (let left = bytes; left > 0;) {
    const size = Math.min(BLOCK, left);
    left -= size;
    const header = ((size << 3) | (1 << 1) | (left === 0 ? 1 : 0)) >>> 0;
    parts.push(Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff, byte]));
  }
  return Buffer.concat(parts);
}

/** One Zstandard frame holding `data` in raw blocks (a valid frame any decoder reads back). */
export function zstdRawFrame(data: Buffer): Buffer {
  const parts: Buffer[] = [Buffer.from([0x28, 0xb5, 0x2f, 0xfd, 0, 10 << 3])];
  for (let at = 0; at < data.length || at === 0; at += BLOCK) {
    const chunk = data.subarray(at, at + BLOCK);
    const last = at + BLOCK >= data.length ? 1 : 0;
    const header = (chunk.length << 3) | last;
    parts.push(Buffer.from([header & 0xff, (header >> 8) & 0xff, (header >> 16) & 0xff]), chunk);
    if (last) break;
  }
  return Buffer.concat(parts);
}

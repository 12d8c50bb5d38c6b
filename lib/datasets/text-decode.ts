/**
 * Text files of unknown encoding: a UTF-8 byte-order mark is dropped; bytes that are not UTF-8 are read as
 * windows-1252, the WHATWG reading of "latin-1" (BIRD's files use 0x95 for • and 0x96 for –). Node's
 * TextDecoder maps 0x80–0x9F to control characters, so that range is mapped here.
 */
import { isUtf8 } from "node:buffer";

// windows-1252 0x80–0x9F; undefined bytes (0x81, 0x8D, 0x8F, 0x90, 0x9D) stay as their latin-1 code points.
const CP1252_HIGH =
  "\u20AC\u0081\u201A\u0192\u201E\u2026\u2020\u2021\u02C6\u2030\u0160\u2039\u0152\u008D\u017D\u008F\u0090\u2018\u2019\u201C\u201D\u2022\u2013\u2014\u02DC\u2122\u0161\u203A\u0153\u009D\u017E\u0178";

export function decodeWindows1252(bytes: Buffer): string {
  let out = "";
  for (const byte of bytes) out += byte >= 0x80 && byte <= 0x9f ? CP1252_HIGH[byte - 0x80] : String.fromCharCode(byte);
  return out;
}

export function decodeText(bytes: Buffer): { text: string; encoding: "utf-8" | "utf-8-bom" | "latin1" } {
  if (bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf)
    return { text: bytes.subarray(3).toString("utf8"), encoding: "utf-8-bom" };
  if (isUtf8(bytes)) return { text: bytes.toString("utf8"), encoding: "utf-8" };
  return { text: decodeWindows1252(bytes), encoding: "latin1" };
}

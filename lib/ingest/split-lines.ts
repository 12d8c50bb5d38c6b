/**
 * Splits a byte stream into JSONL lines without holding the file: one line at a time, with its
 * 1-based number. Handles a UTF-8 byte-order mark on the first line and CRLF line ends; reports
 * invalid UTF-8 and lines over the size limit (their bytes are skipped, not buffered).
 */
import { Buffer, isUtf8 } from "node:buffer";

export type RawLine =
  { lineNo: number; text: string; bytes: number } | { lineNo: number; error: string; bytes: number };

export interface SplitProgress {
  bytes: number;
  lines: number;
}

const NEWLINE = 0x0a;

/** What a line over the size limit is reported as. */
export const oversizedLine = (bytes: number, maxLineBytes: number) =>
  `line is ${bytes} bytes, over the limit of ${maxLineBytes} bytes (METRON_MAX_LINE_BYTES)`;

export async function* splitLines(
  chunks: AsyncIterable<Uint8Array>,
  maxLineBytes: number,
  progress?: SplitProgress,
  /** The number of the stream's first line: a block of a file read by a pool of workers starts inside it. */
  firstLine = 1,
): AsyncGenerator<RawLine> {
  let parts: Buffer[] = [];
  let size = 0;
  let oversized = false;
  let lineNo = firstLine - 1;

  const finishLine = (): RawLine | null => {
    lineNo++;
    if (progress) progress.lines = lineNo - firstLine + 1;
    const bytes = size;
    if (oversized) {
      parts = [];
      size = 0;
      oversized = false;
      return { lineNo, error: oversizedLine(bytes, maxLineBytes), bytes };
    }
    let buf = parts.length === 1 ? parts[0] : Buffer.concat(parts, size);
    parts = [];
    size = 0;
    if (lineNo === 1 && buf.length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) buf = buf.subarray(3);
    if (buf.length > 0 && buf[buf.length - 1] === 0x0d) buf = buf.subarray(0, buf.length - 1);
    if (!isUtf8(buf)) return { lineNo, error: "invalid UTF-8", bytes };
    const text = buf.toString("utf8");
    // Blank lines are skipped, not errors: JSONL files often end with one.
    if (text.trim() === "") return null;
    return { lineNo, text, bytes };
  };

  const append = (piece: Buffer) => {
    if (oversized) {
      size += piece.length;
      return;
    }
    if (size + piece.length > maxLineBytes) {
      oversized = true;
      parts = [];
      size += piece.length;
      return;
    }
    if (piece.length) parts.push(piece);
    size += piece.length;
  };

  for await (const chunk of chunks) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (progress) progress.bytes += buf.length;
    let start = 0;
    for (let nl = buf.indexOf(NEWLINE, start); nl !== -1; nl = buf.indexOf(NEWLINE, start)) {
      append(buf.subarray(start, nl));
      const line = finishLine();
      if (line) yield line;
      start = nl + 1;
    }
    // Copy the tail: the chunk's memory may be reused by the stream.
    if (start < buf.length) append(Buffer.from(buf.subarray(start)));
  }
  if (size > 0 || oversized) {
    const line = finishLine();
    if (line) yield line;
  }
}

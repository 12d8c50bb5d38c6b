import type { Sql } from "@/lib/db/sql";
import { createReadStream, statSync } from "node:fs";
import path from "node:path";
import { ingestAuto, type AutoOptions, type AutoReport } from "./ingest-auto";

/**
 * Ingests a trace file from disk: canonical JSONL streamed in 256 kB chunks (with the ingest worker a few are in
 * flight at once, and small ones keep the peak memory low), or a foreign format.
 */
export function ingestFile(sql: Sql, file: string, options: AutoOptions = {}): Promise<AutoReport> {
  return ingestAuto(sql, createReadStream(file, { highWaterMark: 256 << 10 }), {
    fileName: path.basename(file),
    expectedBytes: statSync(file).size,
    ...options,
  });
}

import type Database from "better-sqlite3";
import { createReadStream, statSync } from "node:fs";
import path from "node:path";
import { ingestAuto, type AutoOptions, type AutoReport } from "./ingest-auto";

/** Ingests a trace file from disk (canonical JSONL streamed in 1 MB chunks: with the ingest worker, a few are in flight at once, or a foreign format). */
export function ingestFile(sqlite: Database.Database, file: string, options: AutoOptions = {}): Promise<AutoReport> {
  return ingestAuto(sqlite, createReadStream(file, { highWaterMark: 1 << 20 }), {
    fileName: path.basename(file),
    expectedBytes: statSync(file).size,
    ...options,
  });
}

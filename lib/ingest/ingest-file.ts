import type Database from "better-sqlite3";
import { createReadStream } from "node:fs";
import path from "node:path";
import { ingestAuto, type AutoOptions, type AutoReport } from "./ingest-auto";

/** Ingests a trace file from disk (canonical JSONL streamed in 4 MB chunks, or a foreign format). */
export function ingestFile(sqlite: Database.Database, file: string, options: AutoOptions = {}): Promise<AutoReport> {
  return ingestAuto(sqlite, createReadStream(file, { highWaterMark: 4 << 20 }), {
    fileName: path.basename(file),
    ...options,
  });
}

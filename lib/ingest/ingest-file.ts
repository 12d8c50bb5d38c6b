import type Database from "better-sqlite3";
import { createReadStream } from "node:fs";
import path from "node:path";
import { ingestStream, type IngestOptions, type IngestReport } from "./ingest";

/** Ingests a JSONL file from disk, streamed in 4 MB chunks. */
export function ingestFile(sqlite: Database.Database, file: string, options: IngestOptions = {}): Promise<IngestReport> {
  return ingestStream(sqlite, createReadStream(file, { highWaterMark: 4 << 20 }), { fileName: path.basename(file), ...options });
}

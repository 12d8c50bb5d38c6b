import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb, type Db } from "@/lib/db/client";
import { asSql, type Sql } from "@/lib/db/sql";

/** A store in a temporary file, migrated with the real migrations; `sql` is the same connection behind `Sql`. */
export function tempDb(): { db: Db; sql: Sql; file: string; dir: string; cleanup: () => void } {
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-test-"));
  const file = path.join(dir, "store.db");
  const db = openDb(file);
  return {
    db,
    sql: asSql(db.$client),
    file,
    dir,
    cleanup: () => {
      db.$client.close();
      // Retried: an ingest worker's checkpoint after an upload (in-worker.ts `checkpointAfter`) may still be writing
      // the store's log when a test ends; a test that ingested in a worker awaits `checkpointsSettled` first.
      rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
    },
  };
}

export async function* chunksOf(text: string | Buffer, size = 7): AsyncGenerator<Uint8Array> {
  const buf = typeof text === "string" ? Buffer.from(text) : text;
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

/**
 * Staged uploads: the browser sends a file once; Metron keeps it under `staged/` beside the store, previews it
 * (preview.ts), and ingests it when the researcher has filled in what the file does not say. A staged file not
 * stored within a day is removed.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { dataDir } from "@/lib/db/client";
import { receiveToFile } from "./receive";

const DAY = 24 * 3600 * 1000;
const stagedDir = () => path.join(dataDir(), "staged");

export async function stageUpload(
  body: ReadableStream<Uint8Array>,
  onBytes?: (bytes: number) => void,
): Promise<{ id: string; file: string; bytes: number }> {
  const dir = stagedDir();
  if (existsSync(dir))
    for (const f of readdirSync(dir))
      if (Date.now() - statSync(path.join(dir, f)).mtimeMs > DAY) await rm(path.join(dir, f), { force: true });
  const received = await receiveToFile(body, { dir, onBytes });
  return { id: path.basename(received.file, ".part"), file: received.file, bytes: received.bytes };
}

/** The staged file of an id (ids are the UUIDs `stageUpload` made), or null when it is gone. */
export function stagedFile(id: string): string | null {
  if (!/^[0-9a-f-]{36}$/.test(id)) return null;
  const file = path.join(stagedDir(), `${id}.part`);
  return existsSync(file) ? file : null;
}

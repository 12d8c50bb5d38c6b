/**
 * Receives an upload's body into a temporary file before anything is written to the store, so a slow or stalled
 * client never holds SQLite's write lock: the write transaction starts only once the whole body is on disk.
 * Bounded: a body that stays silent for `METRON_UPLOAD_IDLE_MS` or grows past `METRON_MAX_UPLOAD_BYTES` is refused.
 */
import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { mkdir, readdir, rm } from "node:fs/promises";
import path from "node:path";
import { positiveNumber } from "@/lib/config/env";
import { dataDir } from "@/lib/db/client";

export class UploadStalledError extends Error {}
export class UploadTooLargeError extends Error {}

export function uploadLimits() {
  return {
    idleMs: positiveNumber("METRON_UPLOAD_IDLE_MS", 30_000),
    maxBytes: positiveNumber("METRON_MAX_UPLOAD_BYTES", 8 * 1024 ** 3),
  };
}

/** Where upload bodies wait for their ingest: beside the store (one server per store folder), removed after it. */
export const receivedDir = () => path.join(dataDir(), "received");

/**
 * Removes the bodies a previous server process left behind (it stopped mid-upload): called at start, when no upload
 * of this store's server is in flight. Returns how many bytes' worth of files went.
 */
export async function removeLeftoverBodies(): Promise<number> {
  const dir = receivedDir();
  let removed = 0;
  for (const f of await readdir(dir).catch(() => [] as string[]))
    if (f.endsWith(".part")) {
      await rm(path.join(dir, f), { force: true });
      removed++;
    }
  return removed;
}

export interface Received {
  file: string;
  bytes: number;
  /** Removes the temporary file. */
  dispose: () => Promise<void>;
}

export async function receiveToFile(
  body: ReadableStream<Uint8Array>,
  options: { onBytes?: (bytes: number) => void; dir?: string; file?: string } = {},
): Promise<Received> {
  const { idleMs, maxBytes } = uploadLimits();
  const dir = options.file ? path.dirname(options.file) : (options.dir ?? receivedDir());
  await mkdir(dir, { recursive: true });
  const file = options.file ?? path.join(dir, `${randomUUID()}.part`);
  const out = createWriteStream(file);
  const dispose = () => rm(file, { force: true });
  const reader = body.getReader();
  let bytes = 0;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const idle = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () =>
            reject(
              new UploadStalledError(
                `the upload stalled: no data for ${idleMs} ms after ${bytes} bytes (METRON_UPLOAD_IDLE_MS); nothing was stored`,
              ),
            ),
          idleMs,
        );
      });
      const next = await Promise.race([reader.read(), idle]).finally(() => clearTimeout(timer));
      if (next.done) break;
      bytes += next.value.byteLength;
      if (bytes > maxBytes)
        throw new UploadTooLargeError(
          `the upload is over ${maxBytes} bytes (METRON_MAX_UPLOAD_BYTES); nothing was stored`,
        );
      if (!out.write(next.value)) await new Promise<void>((r) => out.once("drain", () => r()));
      options.onBytes?.(bytes);
    }
    await new Promise<void>((resolve, reject) => out.end((e?: Error | null) => (e ? reject(e) : resolve())));
    return { file, bytes, dispose };
  } catch (e) {
    void reader.cancel().catch(() => undefined);
    // The file is opened asynchronously: wait until the stream is closed, or the open would create it after the rm.
    const closed = out.closed ? Promise.resolve() : new Promise<void>((r) => out.once("close", () => r()));
    out.destroy();
    await closed;
    await dispose();
    throw e;
  }
}

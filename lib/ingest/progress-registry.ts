/**
 * Progress of browser uploads in flight, by a token the browser chooses, so a second request
 * (the progress event stream) can follow an upload. Kept on globalThis: Next may load this
 * module once per route bundle.
 */
import type { IngestProgress } from "./ingest";

export interface UploadProgress extends IngestProgress {
  done: boolean;
  failed?: string;
  updatedAt: number;
}

const KEEP_MS = 5 * 60_000;
const g = globalThis as unknown as { metronUploads?: Map<string, UploadProgress> };
const registry = (g.metronUploads ??= new Map());

export function reportProgress(token: string, progress: IngestProgress, done = false, failed?: string): void {
  registry.set(token, { ...progress, done, failed, updatedAt: Date.now() });
  for (const [key, value] of registry) if (Date.now() - value.updatedAt > KEEP_MS) registry.delete(key);
}

export function readProgress(token: string): UploadProgress | undefined {
  return registry.get(token);
}

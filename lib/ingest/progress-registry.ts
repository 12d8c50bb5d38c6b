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
type Listener = (p: UploadProgress) => void;
const g = globalThis as unknown as {
  metronUploads?: Map<string, UploadProgress>;
  metronUploadListeners?: Map<string, Set<Listener>>;
};
const registry = (g.metronUploads ??= new Map());
const listeners = (g.metronUploadListeners ??= new Map());

export function reportProgress(token: string, progress: IngestProgress, done = false, failed?: string): void {
  const p = { ...progress, done, failed, updatedAt: Date.now() };
  registry.set(token, p);
  for (const l of listeners.get(token) ?? []) l(p);
  for (const [key, value] of registry) if (Date.now() - value.updatedAt > KEEP_MS) registry.delete(key);
}

/** Follows an upload's progress as it is reported; returns the unsubscribe. */
export function subscribeProgress(token: string, listener: Listener): () => void {
  let set = listeners.get(token);
  if (!set) listeners.set(token, (set = new Set()));
  set.add(listener);
  return () => {
    set.delete(listener);
    if (set.size === 0) listeners.delete(token);
  };
}

export function readProgress(token: string): UploadProgress | undefined {
  return registry.get(token);
}

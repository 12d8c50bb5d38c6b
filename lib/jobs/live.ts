/**
 * The live event log of the jobs this process runs or queued: what a page follows while a job's steps arrive. The
 * job's state lives in the store (lib/jobs/queue.ts); this is memory only, released an hour (METRON_RERUN_RETENTION_MS)
 * after a job finishes.
 */
import { scrubValue } from "@/lib/config/secrets";
import { jobSettings } from "./settings";

/** What the queue itself says of a job; the job's own events (its steps, its result) come from what it runs. */
export type QueueEvent =
  | { type: "status"; status: "queued" | "running"; position?: number; attempt?: number; retryInMs?: number }
  | { type: "failed"; error: string };

type WithId<E> = E extends unknown ? { id: number } & E : never;

/** What this process holds of a job: its events, for pages that follow it live. */
export interface LiveJob<E extends { type: string } = QueueEvent> {
  id: string;
  sweepId: string | null;
  questionId: string | null;
  sample: number | null;
  state: "queued" | "running" | "finished";
  events: WithId<E>[];
  listeners: Set<(e: WithId<E>) => void>;
  controller: AbortController;
  /** Why it was aborted: a cancel of the job or its sweep, or a pause. */
  abortedFor?: "cancel" | "pause" | "shutdown";
  tokens: number;
  finishedAt?: number;
}

type AnyLiveJob = LiveJob<{ type: string }>;
const g = globalThis as unknown as { metronLiveJobs?: Map<string, AnyLiveJob> };
const live: Map<string, AnyLiveJob> = (g.metronLiveJobs ??= new Map());

export function liveJob<E extends { type: string } = QueueEvent>(id: string): LiveJob<E> | undefined {
  return live.get(id) as LiveJob<E> | undefined;
}

/** The live record of a job, created when it is queued or taken by this process. */
export function trackJob<E extends { type: string } = QueueEvent>(
  id: string,
  sweepId: string | null,
  questionId: string | null,
  sample: number | null,
): LiveJob<E> {
  let job = live.get(id);
  if (!job) {
    job = {
      id,
      sweepId,
      questionId,
      sample,
      state: "queued",
      events: [],
      listeners: new Set(),
      controller: new AbortController(),
      tokens: 0,
    };
    live.set(id, job);
  }
  return job as unknown as LiveJob<E>;
}

/** Appends an event (secrets scrubbed) and tells the pages following the job. */
export function emit<E extends { type: string }>(job: LiveJob<E>, body: E): void {
  const event = { id: job.events.length, ...scrubValue(body) } as WithId<E>;
  job.events.push(event);
  for (const l of job.listeners) l(event);
}

/** Releases the events of jobs finished longer ago than the retention period (their records stay). */
export function releaseFinished(): void {
  const cutoff = Date.now() - jobSettings().retentionMs;
  for (const [id, job] of live)
    if (job.state === "finished" && job.finishedAt !== undefined && job.finishedAt < cutoff) live.delete(id);
}

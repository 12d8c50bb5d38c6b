"use server";
/**
 * The question page's writes, as server actions (issue 32): a label on the trace toggled, its note saved, a rerun
 * promoted into a run of its own, a score set by hand. The JSON routes under /api/traces stay for scripts; the page uses these.
 */
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { getSql } from "@/lib/db/store";
import { CurationError } from "@/lib/ingest/curate";
import { promoteTrace } from "@/lib/ingest/promote";
import { LabelError, listLabels, setLabel, setNote, type LabelRow } from "@/lib/labels/labels";
import { listTraceScores, parseScoreValue, setScores, type ScoreRow } from "@/lib/scores/scores";
import { InvalidArgument, valid, who } from "../../../../action-args";

export type Outcome<T extends object = object> = ({ ok: true } & T) | { ok: false; error: string };

const TraceId = z.string().min(1).max(200);
const Label = z.string().trim().min(1).max(200);

async function attempt<T extends object>(fn: () => Promise<Outcome<T>>): Promise<Outcome<T>> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof LabelError || e instanceof CurationError || e instanceof InvalidArgument)
      return { ok: false, error: e.message };
    throw e;
  }
}

/** Sets (`on`) or removes a label on the trace; the trace's labels as they now are. */
export async function toggleLabel(
  traceId: string,
  label: string,
  on: boolean,
): Promise<Outcome<{ labels: LabelRow[] }>> {
  return attempt(async () => {
    traceId = valid(TraceId, traceId, "traceId");
    label = valid(Label, label, "label");
    on = valid(z.boolean(), on, "on");
    const sql = await getSql();
    await setLabel(sql, traceId, label, { on, who: await who() });
    return { ok: true, labels: await listLabels(sql, traceId) };
  });
}

/** Sets the trace's note; empty text removes it. */
export async function saveNote(traceId: string, note: string): Promise<Outcome> {
  return attempt(async () => {
    traceId = valid(TraceId, traceId, "traceId");
    note = valid(z.string().max(10_000), note, "note");
    await setNote(await getSql(), traceId, note, { who: await who() });
    return { ok: true };
  });
}

/** Promotes a rerun into a named run of its system and model (created if needed); the question pages show it. */
export async function promoteRerun(traceId: string, run: string): Promise<Outcome<{ runId: string; sample: number }>> {
  return attempt(async () => {
    traceId = valid(TraceId, traceId, "traceId");
    run = valid(z.string().trim().min(1).max(200), run, "run");
    const r = await promoteTrace(await getSql(), traceId, run, await who());
    revalidatePath("/runs/[runId]/questions/[questionId]", "page");
    revalidatePath("/");
    return { ok: true, ...r };
  });
}

/**
 * Sets a score on the trace by hand (source `human`; the same name replaces it): the value typed is a boolean
 * (`true` / `false`), a number, or a category. The trace's scores as they now are, or why it was refused.
 */
export async function setTraceScore(
  traceId: string,
  name: string,
  value: string,
  comment: string,
): Promise<Outcome<{ scores: ScoreRow[] }>> {
  return attempt<{ scores: ScoreRow[] }>(async () => {
    traceId = valid(TraceId, traceId, "traceId");
    name = valid(z.string().trim().min(1, "give a name").max(100), name, "name");
    value = valid(z.string().trim().min(1, "give a value").max(200), value, "value");
    comment = valid(z.string().max(10_000), comment, "comment");
    const sql = await getSql();
    const score = { trace_id: traceId, name, value: parseScoreValue(value), source: "human" };
    const r = await setScores(sql, [comment.trim() ? { ...score, comment: comment.trim() } : score]);
    if (r.unknown_traces) return { ok: false, error: "this trace is no longer in the store" };
    if (r.errors.length) return { ok: false, error: r.errors.map((e) => e.message).join("; ") };
    revalidatePath("/runs/[runId]", "page");
    return { ok: true, scores: await listTraceScores(sql, traceId) };
  });
}

"use server";
import { getSql } from "@/lib/db/store";

import { redirect } from "next/navigation";
import { createExperiment } from "@/lib/ingest/curate";

/** Saves the runs of the current view as a named experiment, whose figures then change only with its set. */
export async function saveExperiment(form: FormData): Promise<void> {
  const runIds = JSON.parse(String(form.get("runIds") ?? "[]")) as unknown;
  const ids = Array.isArray(runIds) ? runIds.filter((r): r is string => typeof r === "string") : [];
  const id = await createExperiment(await getSql(), String(form.get("name") ?? ""), ids);
  redirect(`/experiments?experiment=${id}`);
}

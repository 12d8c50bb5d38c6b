"use server";
import { getSql } from "@/lib/db/store";

import { redirect } from "next/navigation";
import { createExperiment } from "@/lib/ingest/curate";
import { z } from "zod";

const SaveExperiment = z.object({
  name: z.string().max(200),
  runIds: z.array(z.string().min(1).max(200)).max(10_000),
});

/** Saves the runs of the current view as a named experiment, whose figures then change only with its set. */
export async function saveExperiment(form: FormData): Promise<void> {
  // A server action is an endpoint: its form is checked as any request's body is.
  const parsed = SaveExperiment.safeParse({
    name: form.get("name") ?? "",
    runIds: JSON.parse(String(form.get("runIds") ?? "[]")) as unknown,
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${issue.path.join(".") || "form"}: ${issue.message}`);
  }
  const id = await createExperiment(await getSql(), parsed.data.name, parsed.data.runIds);
  redirect(`/experiments?experiment=${id}`);
}

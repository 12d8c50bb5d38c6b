"use server";

import { randomUUID } from "node:crypto";
import { redirect } from "next/navigation";
import { getDb } from "@/lib/db/client";

/** Saves the runs of the current view as a named experiment, whose figures then change only with its set. */
export async function saveExperiment(form: FormData): Promise<void> {
  const name = String(form.get("name") ?? "")
    .trim()
    .slice(0, 200);
  const runIds = JSON.parse(String(form.get("runIds") ?? "[]")) as unknown;
  if (!name || !Array.isArray(runIds) || runIds.length === 0 || !runIds.every((r) => typeof r === "string"))
    throw new Error("an experiment needs a name and at least one run");
  const db = getDb().$client;
  const known = db
    .prepare(`SELECT id, dataset_id AS d FROM runs WHERE id IN (${runIds.map(() => "?").join(",")})`)
    .all(...runIds) as { id: string; d: string | null }[];
  const datasets = [...new Set(known.map((r) => r.d))];
  const id = randomUUID().slice(0, 8);
  db.prepare("INSERT INTO experiments (id, name, dataset_id, run_ids) VALUES (?, ?, ?, ?)").run(
    id,
    name,
    datasets.length === 1 ? datasets[0] : null,
    JSON.stringify(known.map((r) => r.id)),
  );
  redirect(`/experiments?experiment=${id}`);
}

import { z } from "zod";
import { providerIds } from "@/lib/agent/providers";
import { createSweep, startSweepWork, SweepError } from "@/lib/agent/sweeps";
import { getSql, storeOpener } from "@/lib/db/store";
import { variants } from "@/lib/environment/directives";
import { invalidBody } from "@/lib/http/invalid";
import { createExperiment } from "@/lib/ingest/curate";

const body = z.object({
  dataset: z.string().min(1),
  sourceRunId: z.string().min(1).optional(),
  selection: z.discriminatedUnion("kind", [
    z.object({ kind: z.literal("failing"), runId: z.string().min(1) }),
    z.object({ kind: z.literal("all") }),
    z.object({ kind: z.literal("ids"), ids: z.array(z.string().min(1)).min(1).max(20_000) }),
    z.object({
      kind: z.literal("filter"),
      ids: z.array(z.string().min(1)).min(1).max(20_000),
      description: z.string().max(500),
    }),
  ]),
  provider: z.enum(providerIds).optional(),
  model: z.string().min(1).max(200).optional(),
  /**
   * A harness profile of the server's configuration, by name only: a command never comes from a request (issue 31).
   */
  harness: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/)
    .optional(),
  variant: z.enum(variants),
  /** A grid: one sweep per variant (instead of `variant` alone), saved as one experiment named `experiment`. */
  variants: z.array(z.enum(variants)).min(1).max(3).optional(),
  experiment: z.string().min(1).max(200).optional(),
  samples: z.number().int().min(1).max(20).optional(),
  concurrency: z.number().int().min(1).max(64).optional(),
  maxSteps: z.number().int().min(1).max(200).optional(),
  budget: z
    .object({
      maxCostUsd: z.number().positive().optional(),
      maxTokens: z.number().int().positive().optional(),
      maxWallMs: z.number().int().positive().optional(),
    })
    .optional(),
  name: z.string().max(200).optional(),
});

/** Starts a sweep: a new run of the dataset, its jobs queued and worked by the server; answers its run id. */
export async function POST(request: Request) {
  const parsed = body.safeParse(await request.json().catch(() => null));
  if (!parsed.success) return invalidBody(parsed.error);
  const { maxSteps, provider, model, ...rest } = parsed.data;
  if (!rest.harness && (!provider || !model))
    return Response.json({ error: "provider and model are required (or a harness profile's name)" }, { status: 400 });
  const sql = await getSql();
  const { variants: grid, experiment, ...one } = rest;
  const runIds: string[] = [];
  let jobs = 0;
  try {
    for (const variant of grid ?? [one.variant]) {
      const created = await createSweep(sql, {
        ...one,
        variant,
        provider: provider ?? "simulated",
        model: model ?? "",
        ...(maxSteps ? { limits: { maxSteps } } : {}),
        ...(one.name && grid && grid.length > 1 ? { name: `${one.name} · ${variant}` } : {}),
        createdBy: request.headers.get("x-metron-principal") ?? "local",
      });
      runIds.push(created.runId);
      jobs += created.jobs;
    }
    // A grid is one experiment: its matrix has a cell per variant (issue 31).
    const experimentId =
      grid && grid.length > 1
        ? await createExperiment(
            sql,
            experiment ?? `Grid ${new Date().toISOString().replace("T", " ").slice(0, 19)} UTC`,
            runIds,
          )
        : null;
    startSweepWork(storeOpener());
    return Response.json({ runId: runIds[0], runIds, jobs, experimentId });
  } catch (e) {
    if (e instanceof SweepError) return Response.json({ error: e.message, runIds }, { status: 400 });
    throw e;
  }
}

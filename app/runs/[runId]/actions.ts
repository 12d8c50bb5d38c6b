"use server";
import { count } from "@/lib/text/count";
import { getSql, storeOpener } from "@/lib/db/store";
import { viewsAfterCuration } from "@/lib/views/ahead";

import { InvalidArgument, valid, who } from "../../action-args";
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import {
  archiveRun,
  CurationError,
  editRun,
  linkRunDataset,
  parseRoles,
  previewRoles,
  setRunRoles,
} from "@/lib/ingest/curate";
import { deleteRun } from "@/lib/ingest/remove";
import { runPath } from "@/lib/url/runs";
import { z } from "zod";

import type { ActionResult } from "@/components/runs/run-curation";

export type { ActionResult };

// A server action is an endpoint: anyone who can reach the server can call it with any arguments.
const RunId = z.string().min(1).max(200);
const Text = (max: number) => z.string().max(max);
const Identity = z.object({
  name: Text(200),
  system: Text(200),
  model: Text(200),
  description: Text(10_000),
  tags: Text(2_000),
});

async function attempt(runId: string, fn: () => Promise<ActionResult>): Promise<ActionResult> {
  try {
    valid(RunId, runId, "runId");
    const r = await fn();
    viewsAfterCuration(storeOpener());
    revalidatePath(runPath(runId));
    revalidatePath("/");
    revalidatePath("/experiments");
    return r;
  } catch (e) {
    if (e instanceof CurationError || e instanceof SyntaxError || e instanceof InvalidArgument)
      return { ok: false, error: e.message };
    throw e;
  }
}

export async function saveRunIdentity(
  runId: string,
  form: { name: string; system: string; model: string; description: string; tags: string },
): Promise<ActionResult> {
  return attempt(runId, async () => {
    form = valid(Identity, form, "form");
    const changes = await editRun(
      await getSql(),
      runId,
      {
        name: form.name,
        system: form.system,
        model: form.model,
        description: form.description,
        tags: form.tags.split(","),
      },
      await who(),
    );
    return { ok: true, message: changes.length ? `Saved: ${changes.join("; ")}` : "Nothing changed" };
  });
}

export async function linkDataset(runId: string, dataset: string): Promise<ActionResult> {
  return attempt(runId, async () => {
    dataset = valid(Text(200), dataset, "dataset");
    const r = await linkRunDataset(await getSql(), runId, dataset || null, await who());
    return {
      ok: true,
      message: dataset
        ? `Linked: ${r.linked} of ${count(r.traces, "trace")} matched a question of the dataset; metrics recomputed`
        : "Unlinked; metrics recomputed",
    };
  });
}

export async function previewRunRoles(runId: string, roles: string): Promise<ActionResult> {
  try {
    valid(RunId, runId, "runId");
    const p = await previewRoles(await getSql(), runId, parseRoles(JSON.parse(valid(Text(100_000), roles, "roles"))));
    return {
      ok: true,
      changed: p.changed,
      message: p.changed
        ? `${count(p.changed, "call")} change role: ${p.tools.map((t) => `${t.tool} ${t.from} → ${t.to} (${t.calls})`).join(", ")}`
        : "No call changes role",
    };
  } catch (e) {
    return { ok: false, error: (e as Error).message };
  }
}

export async function applyRunRoles(runId: string, roles: string): Promise<ActionResult> {
  return attempt(runId, async () => {
    const parsed = parseRoles(JSON.parse(valid(Text(100_000), roles, "roles")));
    const r = await setRunRoles(await getSql(), runId, parsed, await who());
    return {
      ok: true,
      changed: r.changed,
      message: `Roles saved; ${count(r.changed, "call")} changed role; metrics recomputed`,
    };
  });
}

export async function setRunArchived(runId: string, archived: boolean): Promise<ActionResult> {
  return attempt(runId, async () => {
    archived = valid(z.boolean(), archived, "archived");
    await archiveRun(await getSql(), runId, archived, await who());
    return {
      ok: true,
      message: archived ? "Archived: hidden from the run list and the Experiments page" : "Unarchived",
    };
  });
}

export async function removeRun(runId: string): Promise<ActionResult> {
  const r = await attempt(runId, async () => {
    const d = await deleteRun(await getSql(), runId);
    return {
      ok: true,
      message: `Deleted ${count(d.traces, "trace")}, ${count(d.steps, "step")}, ${count(d.blobs, "unreferenced result")}`,
    };
  });
  if (r.ok) redirect(`/?deleted=${encodeURIComponent(r.message)}`);
  return r;
}

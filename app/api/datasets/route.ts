import path from "node:path";
import { getSql, storeOpener } from "@/lib/db/store";
import { viewsInBackground } from "@/lib/views/ahead";
import { z } from "zod";
import { DatasetUploadError, importPaths, uploadFolder } from "@/lib/datasets/browser-import";
import { importDataset, importReportJson } from "@/lib/datasets/import-dataset";
import { datasetFormats } from "@/lib/datasets/question-formats";
import { invalidBody } from "@/lib/http/invalid";

const body = z.object({
  upload: z.string().regex(/^[0-9a-f-]{8,36}$/),
  name: z.string().trim().min(1).max(200),
  format: z.enum(datasetFormats),
});

/** Imports an uploaded dataset folder (files sent to /api/datasets/files), as `metron dataset import` would. */
export async function POST(request: Request) {
  const parsed = body.safeParse(await request.json().catch(() => null));
  if (!parsed.success) return invalidBody(parsed.error);
  try {
    const paths = importPaths(parsed.data.upload);
    const r = await importDataset(await getSql(), { name: parsed.data.name, format: parsed.data.format, ...paths });
    // Runs it linked were recomputed (new versions): their pages' views computed in the background.
    if (r.linkedRuns.length) viewsInBackground(storeOpener());
    return Response.json(importReportJson(r));
  } catch (e) {
    // The files as the user named them: the folder they were staged in is the server's business, not the page's.
    const staged = uploadFolder(parsed.data.upload) + path.sep;
    const message = (e as Error).message.replaceAll(staged, "");
    return Response.json(
      { error: e instanceof DatasetUploadError ? message : `import failed: ${message}` },
      { status: 400 },
    );
  }
}

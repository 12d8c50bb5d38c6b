import { getSql, storeOpener } from "@/lib/db/store";
import { rm } from "node:fs/promises";
import { z } from "zod";
import type { Sql } from "@/lib/db/sql";
import { EmptyInputError, UnknownDatasetError } from "@/lib/ingest/ingest";
import { ForeignFileTooLargeError } from "@/lib/ingest/ingest-auto";
import { ingestFile } from "@/lib/ingest/ingest-file";
import { indexInBackground } from "@/lib/search";
import { viewsInBackground } from "@/lib/views/ahead";
import { previewFile } from "@/lib/ingest/preview";
import { reportProgress } from "@/lib/ingest/progress-registry";
import { receiveToFile, UploadStalledError, UploadTooLargeError } from "@/lib/ingest/receive";
import { stagedFile, stageUpload } from "@/lib/ingest/staging";
import { StoreFaultError } from "@/lib/ingest/store-fault";
import { stepRoles } from "@/lib/sql/classify-step";
import { UnknownFormatError } from "@/lib/trace/adapters";
import { ArchiveLimitError } from "@/lib/trace/adapters/inspect-zip";
import { FORMATS } from "@/lib/trace/adapters/formats";
import { invalidBody } from "@/lib/http/invalid";
import type { NextRequest } from "next/server";
import { gate } from "@/lib/auth/gate";

const query = z.object({
  token: z
    .string()
    .regex(/^[\w-]{8,64}$/)
    .optional(),
  filename: z.string().max(500).optional(),
  run: z.string().max(500).optional(),
  system: z.string().max(500).optional(),
  model: z.string().max(500).optional(),
  benchmark: z.string().max(500).optional(),
  dataset: z.string().max(500).optional(),
  format: z.enum(["auto", ...FORMATS] as [string, ...string[]]).default("auto"),
  question: z.string().max(500).optional(),
  /** `stage=1`: keep the body and answer with a preview; `staged=<id>`: ingest a staged body. */
  stage: z.enum(["1"]).optional(),
  staged: z.string().max(64).optional(),
  roles: z.string().max(20_000).optional(),
});

const rolesSchema = z.record(z.string().min(1).max(200), z.enum(stepRoles));

/**
 * Upload. A body is received into a file before anything is written (no lock held while a client sends), then
 * ingested in one write transaction, streamed line by line. The browser stages first (`stage=1`: a preview of the
 * runs and what they do not say), then stores the staged file with what the researcher filled in (`staged=<id>`).
 */
export async function POST(request: NextRequest) {
  // Outside the proxy (a proxy would buffer the body and cut it at 10 MB): access is checked here.
  const checked = gate(request);
  if (!checked.ok) return checked.response;
  const parsed = query.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) return invalidBody(parsed.error);
  const { token, filename, run, system, model, benchmark, dataset, format, question, stage, staged, roles } =
    parsed.data;
  let toolRoles: Record<string, string> | undefined;
  if (roles) {
    const r = rolesSchema.safeParse(JSON.parse(roles));
    if (!r.success)
      return Response.json(
        { error: `roles: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}` },
        { status: 400 },
      );
    toolRoles = Object.keys(r.data).length ? r.data : undefined;
  }
  const blank = (s?: string) => (s && s.trim() ? s.trim() : undefined);
  await getSql(); // migrates the store before a second connection writes to it
  let file: string | null = null;
  let keep = false;
  let store: Sql | undefined;
  try {
    if (staged) {
      file = stagedFile(staged);
      if (!file)
        return Response.json(
          { error: `no staged upload ${staged} (stored already, or older than a day): upload the file again` },
          { status: 404 },
        );
    } else {
      if (!request.body)
        return Response.json({ error: "empty body: send the trace file as the request body" }, { status: 400 });
      const onBytes = (bytes: number) => token && reportProgress(token, { bytes, lines: 0, traces: 0, errors: 0 });
      if (stage) {
        const s = await stageUpload(request.body, onBytes);
        file = s.file;
        keep = true;
        const preview = await previewFile(await getSql(), s.file, { format, fileName: filename });
        return Response.json({ staged: s.id, bytes: s.bytes, preview });
      }
      file = (await receiveToFile(request.body, { onBytes })).file;
    }
    // An upload writes on a connection of its own (SQLite), or a pooled one per transaction (PostgreSQL).
    store = await storeOpener()();
    const report = await ingestFile(store, file, {
      source: "browser",
      format,
      dataset: blank(dataset),
      questionId: blank(question),
      fileName: filename,
      toolRoles,
      defaults: { name: blank(run), system: blank(system), model: blank(model), benchmark: blank(benchmark) },
      progressEvery: 100,
      onProgress: (p) => token && reportProgress(token, p),
    });
    if (token)
      reportProgress(
        token,
        {
          bytes: report.bytes,
          lines: report.lines,
          traces: report.inserted + report.duplicates,
          errors: report.error_count,
        },
        true,
      );
    if (report.inserted > 0) indexInBackground(storeOpener()); // searchable soon, without a wait
    // The runs' pages' views, before their first view: after new traces, or new tool roles set on the runs of a file
    // whose traces were all stored already (the runs changed, their traces did not).
    if (report.inserted > 0 || (toolRoles && report.runs.length)) viewsInBackground(storeOpener());
    return Response.json(report);
  } catch (e) {
    keep = Boolean(staged); // a staged file that failed to store can be stored again with other settings
    if (token) reportProgress(token, { bytes: 0, lines: 0, traces: 0, errors: 0 }, true, (e as Error).message);
    if (e instanceof EmptyInputError || e instanceof UnknownFormatError || e instanceof UnknownDatasetError)
      return Response.json({ error: e.message }, { status: 400 });
    if (e instanceof StoreFaultError) return Response.json({ error: e.message }, { status: 507 });
    if (e instanceof ArchiveLimitError) return Response.json({ error: e.message }, { status: 422 });
    if (e instanceof ForeignFileTooLargeError || e instanceof UploadTooLargeError)
      return Response.json({ error: e.message }, { status: 413 });
    if (e instanceof UploadStalledError) return Response.json({ error: e.message }, { status: 408 });
    return Response.json(
      { error: `upload failed, nothing of it was stored: ${(e as Error).message}` },
      { status: 500 },
    );
  } finally {
    await store?.close();
    if (file && !keep) await rm(file, { force: true });
  }
}

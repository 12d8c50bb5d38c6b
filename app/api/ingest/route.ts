import { z } from "zod";
import { getDb, openConnection } from "@/lib/db/client";
import { EmptyInputError, UnknownDatasetError } from "@/lib/ingest/ingest";
import { ForeignFileTooLargeError, ingestAuto } from "@/lib/ingest/ingest-auto";
import { UnknownFormatError } from "@/lib/trace/adapters";
import { FORMATS } from "@/lib/trace/adapters/formats";
import { reportProgress } from "@/lib/ingest/progress-registry";
import { receiveToFile, UploadStalledError, UploadTooLargeError, type Received } from "@/lib/ingest/receive";
import { createReadStream } from "node:fs";

const query = z.object({
  token: z.string().regex(/^[\w-]{8,64}$/).optional(),
  filename: z.string().max(500).optional(),
  run: z.string().max(500).optional(),
  system: z.string().max(500).optional(),
  model: z.string().max(500).optional(),
  benchmark: z.string().max(500).optional(),
  dataset: z.string().max(500).optional(),
  format: z.enum(["auto", ...FORMATS] as [string, ...string[]]).default("auto"),
  question: z.string().max(500).optional(),
});

/**
 * Upload: the body is first received into a temporary file (no lock held while a client sends), then ingested
 * from it in one write transaction, streamed line by line, never buffered whole.
 */
export async function POST(request: Request) {
  const parsed = query.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) return Response.json({ error: parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ") }, { status: 400 });
  if (!request.body) return Response.json({ error: "empty body: send the JSONL file as the request body" }, { status: 400 });
  const { token, filename, run, system, model, benchmark, dataset, format, question } = parsed.data;
  const blank = (s?: string) => (s && s.trim() ? s.trim() : undefined);
  getDb(); // migrates the store before a second connection writes to it
  let received: Received | undefined;
  let sqlite: ReturnType<typeof openConnection> | undefined;
  try {
    received = await receiveToFile(request.body, { onBytes: (bytes) => token && reportProgress(token, { bytes, lines: 0, traces: 0, errors: 0 }) });
    sqlite = openConnection();
    const report = await ingestAuto(sqlite, createReadStream(received.file, { highWaterMark: 4 << 20 }), {
      source: "browser",
      format,
      dataset: blank(dataset),
      questionId: blank(question),
      fileName: filename,
      defaults: { name: blank(run), system: blank(system), model: blank(model), benchmark: blank(benchmark) },
      progressEvery: 100,
      onProgress: (p) => token && reportProgress(token, p),
    });
    if (token) reportProgress(token, { bytes: report.bytes, lines: report.lines, traces: report.inserted + report.duplicates, errors: report.error_count }, true);
    return Response.json(report);
  } catch (e) {
    if (token) reportProgress(token, { bytes: 0, lines: 0, traces: 0, errors: 0 }, true, (e as Error).message);
    if (e instanceof EmptyInputError || e instanceof UnknownFormatError || e instanceof UnknownDatasetError) return Response.json({ error: e.message }, { status: 400 });
    if (e instanceof ForeignFileTooLargeError || e instanceof UploadTooLargeError) return Response.json({ error: e.message }, { status: 413 });
    if (e instanceof UploadStalledError) return Response.json({ error: e.message }, { status: 408 });
    return Response.json({ error: `upload failed, nothing of it was stored: ${(e as Error).message}` }, { status: 500 });
  } finally {
    sqlite?.close();
    await received?.dispose();
  }
}

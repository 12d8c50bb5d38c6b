import { z } from "zod";
import { DatasetUploadError, destinationOf, fileKinds } from "@/lib/datasets/browser-import";
import { receiveToFile, UploadStalledError, UploadTooLargeError } from "@/lib/ingest/receive";
import { invalidBody } from "@/lib/http/invalid";
import type { NextRequest } from "next/server";
import { gate } from "@/lib/auth/gate";

const query = z.object({
  upload: z.string().regex(/^[0-9a-f-]{8,36}$/),
  kind: z.enum(fileKinds),
  name: z.string().min(1).max(1000),
});

/** One file of a dataset import, streamed to its place in the upload's folder. */
export async function POST(request: NextRequest) {
  // Outside the proxy (a proxy would buffer the body and cut it at 10 MB): access is checked here.
  const checked = gate(request);
  if (!checked.ok) return checked.response;
  const parsed = query.safeParse(Object.fromEntries(new URL(request.url).searchParams));
  if (!parsed.success) return invalidBody(parsed.error);
  if (!request.body) return Response.json({ error: "empty body: send the file as the request body" }, { status: 400 });
  try {
    const file = destinationOf(parsed.data.upload, parsed.data.kind, parsed.data.name);
    const r = await receiveToFile(request.body, { file });
    return Response.json({ kind: parsed.data.kind, name: parsed.data.name, bytes: r.bytes });
  } catch (e) {
    if (e instanceof DatasetUploadError) return Response.json({ error: e.message }, { status: 400 });
    if (e instanceof UploadTooLargeError) return Response.json({ error: e.message }, { status: 413 });
    if (e instanceof UploadStalledError) return Response.json({ error: e.message }, { status: 408 });
    throw e;
  }
}

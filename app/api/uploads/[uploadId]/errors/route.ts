import { connection } from "next/server";
import { getSql } from "@/lib/db/store";
import { getUpload, listUploadErrors } from "@/lib/db/queries/uploads";

/** Every error of an upload as JSONL: {"line": n, "message": "…"} per line. */
export async function GET(_request: Request, ctx: RouteContext<"/api/uploads/[uploadId]/errors">) {
  await connection();
  const { uploadId } = await ctx.params;
  const sql = await getSql();
  const upload = await getUpload(sql, uploadId);
  if (!upload) return Response.json({ error: `no upload ${uploadId}` }, { status: 404 });
  const body = (await listUploadErrors(sql, uploadId)).map((e) => JSON.stringify(e)).join("\n");
  return new Response(body ? body + "\n" : "", {
    headers: {
      "Content-Type": "application/x-ndjson; charset=utf-8",
      "Content-Disposition": `attachment; filename="upload-${uploadId}-errors.jsonl"`,
    },
  });
}

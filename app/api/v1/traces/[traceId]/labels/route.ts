import { getSql } from "@/lib/db/store";
import { ApiError, handler } from "@/lib/api/define";
import { ROUTES } from "@/lib/api/routes";
import { LabelError, listLabels, setLabel } from "@/lib/labels/labels";

export const GET = handler(ROUTES.listLabels, async ({ params }) => ({
  labels: await listLabels(await getSql(), params.traceId),
}));

export const POST = handler(ROUTES.setLabel, async ({ params, body, request }) => {
  const sql = await getSql();
  try {
    await setLabel(sql, params.traceId, body.label, {
      seq: body.seq,
      on: body.on,
      who: request.headers.get("x-metron-principal") ?? "api",
    });
  } catch (e) {
    if (e instanceof LabelError) throw new ApiError(404, e.message, "traceId");
    throw e;
  }
  return { labels: await listLabels(sql, params.traceId) };
});

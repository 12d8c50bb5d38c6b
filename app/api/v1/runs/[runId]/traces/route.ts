import { getSql } from "@/lib/db/store";
import { handler } from "@/lib/api/define";
import { apiRunTraces } from "@/lib/api/read";
import { ROUTES } from "@/lib/api/routes";

export const GET = handler(ROUTES.listRunTraces, async ({ params, query }) =>
  apiRunTraces(await getSql(), params.runId, query.limit, query.cursor),
);

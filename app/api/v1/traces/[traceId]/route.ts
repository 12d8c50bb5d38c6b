import { getSql } from "@/lib/db/store";
import { handler } from "@/lib/api/define";
import { apiTrace } from "@/lib/api/read";
import { ROUTES } from "@/lib/api/routes";

export const GET = handler(ROUTES.getTrace, async ({ params }) => apiTrace(await getSql(), params.traceId));

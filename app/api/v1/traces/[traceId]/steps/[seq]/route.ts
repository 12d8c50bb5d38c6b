import { getSql } from "@/lib/db/store";
import { handler } from "@/lib/api/define";
import { apiStep } from "@/lib/api/read";
import { ROUTES } from "@/lib/api/routes";

export const GET = handler(ROUTES.getStep, async ({ params }) => apiStep(await getSql(), params.traceId, params.seq));

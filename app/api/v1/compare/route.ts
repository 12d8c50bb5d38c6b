import { getSql } from "@/lib/db/store";
import { handler } from "@/lib/api/define";
import { ROUTES } from "@/lib/api/routes";
import { apiCompare } from "@/lib/api/views";

export const GET = handler(ROUTES.compare, async ({ query }) => apiCompare(await getSql(), query.runs, query.baseline));

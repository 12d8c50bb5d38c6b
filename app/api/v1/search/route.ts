import { getSql } from "@/lib/db/store";
import { handler } from "@/lib/api/define";
import { ROUTES } from "@/lib/api/routes";
import { apiSearch } from "@/lib/api/views";

export const GET = handler(ROUTES.search, async ({ query }) => apiSearch(await getSql(), query.q, query.limit));

import { getSql } from "@/lib/db/store";
import { handler } from "@/lib/api/define";
import { apiQuestions } from "@/lib/api/read";
import { ROUTES } from "@/lib/api/routes";

export const GET = handler(ROUTES.listQuestions, async ({ params, query }) =>
  apiQuestions(await getSql(), params.datasetId, query.limit, query.cursor),
);

import { getSql } from "@/lib/db/store";
import { handler } from "@/lib/api/define";
import { apiRun } from "@/lib/api/read";
import { ROUTES } from "@/lib/api/routes";

export const GET = handler(ROUTES.getRunScores, async ({ params }) => ({
  scores: (await apiRun(await getSql(), params.runId)).scores,
}));

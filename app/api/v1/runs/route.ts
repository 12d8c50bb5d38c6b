import { getSql } from "@/lib/db/store";
import { handler } from "@/lib/api/define";
import { apiRuns } from "@/lib/api/read";
import { ROUTES } from "@/lib/api/routes";

export const GET = handler(ROUTES.listRuns, async ({ query }) => ({ runs: await apiRuns(await getSql(), query) }));

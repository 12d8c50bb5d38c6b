import { getSql } from "@/lib/db/store";
import { handler } from "@/lib/api/define";
import { ROUTES } from "@/lib/api/routes";
import { apiExperiments } from "@/lib/api/views";

export const GET = handler(ROUTES.experiments, async ({ query }) => apiExperiments(await getSql(), query));

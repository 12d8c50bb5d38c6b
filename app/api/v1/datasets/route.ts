import { getSql } from "@/lib/db/store";
import { handler } from "@/lib/api/define";
import { apiDatasets } from "@/lib/api/read";
import { ROUTES } from "@/lib/api/routes";

export const GET = handler(ROUTES.listDatasets, async () => apiDatasets(await getSql()));

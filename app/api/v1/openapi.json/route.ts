import { handler } from "@/lib/api/define";
import { openApiDocument } from "@/lib/api/openapi";
import { ROUTES } from "@/lib/api/routes";

export const GET = handler(ROUTES.openapi, async () => openApiDocument());

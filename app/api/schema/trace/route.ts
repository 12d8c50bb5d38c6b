import { traceJsonSchema } from "@/lib/trace/json-schema";

export const dynamic = "force-static";

export function GET() {
  return Response.json(traceJsonSchema());
}

import type { z } from "zod";

/** A request body that does not validate: HTTP 400 naming each field and what is wrong with it. */
export function invalidBody(error: z.ZodError): Response {
  return Response.json(
    { error: error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ") },
    { status: 400 },
  );
}

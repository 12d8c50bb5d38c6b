/**
 * What every server action does first (a server action is an endpoint: anyone who can reach the server can call it
 * with any arguments): check its arguments against their schemas, naming the field it refuses, and say who acts.
 */
import { headers } from "next/headers";
import type { z } from "zod";

/** An argument a server action refused; its message names the field. */
export class InvalidArgument extends Error {}

/** The arguments as their schemas say, or an InvalidArgument that names the field. */
export function valid<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  const field = [what, ...issue.path.map(String)].join(".");
  throw new InvalidArgument(`${field}: ${issue.message}`);
}

/** Who made a change: the access token's name (set by the proxy), else "local". */
export async function who(): Promise<string> {
  return (await headers()).get("x-metron-principal") ?? "local";
}

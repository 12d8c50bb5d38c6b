/**
 * The versioned API's routes (`/api/v1`, docs/api.md), each defined once: its method and path, what its path, query
 * and body take (zod), and what it answers. The route handler validates with the same schemas, and the OpenAPI
 * document (openapi.ts) is generated from them, so the two cannot drift apart. Errors are JSON: `{ error, field }`,
 * the field named where one is at fault.
 */
import { z } from "zod";

export interface RouteDef<
  P extends z.ZodType = z.ZodType,
  Q extends z.ZodType = z.ZodType,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  R extends z.ZodType = z.ZodType,
> {
  id: string;
  method: "GET" | "POST";
  /** OpenAPI style: `/api/v1/runs/{runId}`. */
  path: string;
  summary: string;
  description?: string;
  tag: string;
  params: P;
  query: Q;
  body?: B;
  /** What a 200 carries (JSON), or "parquet" for a file. */
  response: R;
  binary?: "application/vnd.apache.parquet";
}

export const noParams = z.object({});
export const apiError = z.object({
  error: z.string().describe("what went wrong, in words"),
  field: z.string().optional().describe("the parameter or body field at fault, as a path"),
});

export function route<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType | undefined, R extends z.ZodType>(
  def: RouteDef<P, Q, B, R>,
): RouteDef<P, Q, B, R> {
  return def;
}

/** An error the API answers with a status (404 for a missing run, 400 for a bad value). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

export function errorResponse(status: number, message: string, field?: string): Response {
  return Response.json(field ? { error: message, field } : { error: message }, { status });
}

function refused(where: string, error: z.ZodError): Response {
  const issue = error.issues[0];
  const field = [where, ...issue.path.map(String)].filter(Boolean).join(".");
  return errorResponse(400, `${field}: ${issue.message}`, field);
}

// Next gives a route without dynamic segments no params (undefined, not an empty object).
type Ctx = { params?: Promise<Record<string, string | string[]> | undefined> };

/**
 * A route handler from a definition: parses the path, query and JSON body with the definition's schemas (400 naming
 * the field), runs `fn`, and answers its value as JSON (or a Response it made itself).
 */
export function handler<P extends z.ZodType, Q extends z.ZodType, B extends z.ZodType | undefined, R extends z.ZodType>(
  def: RouteDef<P, Q, B, R>,
  fn: (input: {
    params: z.output<P>;
    query: z.output<Q>;
    body: B extends z.ZodType ? z.output<B> : undefined;
    request: Request;
  }) => Promise<z.input<R> | Response>,
) {
  return async (request: Request, ctx: Ctx): Promise<Response> => {
    const params = def.params.safeParse((await ctx?.params) ?? {});
    if (!params.success) return refused("path", params.error);
    const url = new URL(request.url);
    const query = def.query.safeParse(Object.fromEntries(url.searchParams));
    if (!query.success) return refused("query", query.error);
    let body: unknown = undefined;
    if (def.body) {
      const json = await request.json().catch(() => undefined);
      if (json === undefined) return errorResponse(400, "body: not JSON", "body");
      const parsed = def.body.safeParse(json);
      if (!parsed.success) return refused("body", parsed.error);
      body = parsed.data;
    }
    try {
      const out = await fn({
        params: params.data,
        query: query.data,
        body: body as B extends z.ZodType ? z.output<B> : undefined,
        request,
      });
      return out instanceof Response ? out : Response.json(out);
    } catch (e) {
      if (e instanceof ApiError) return errorResponse(e.status, e.message, e.field);
      throw e;
    }
  };
}

/** A query flag: `true`/`1` or `false`/`0`. */
export const flag = z
  .enum(["true", "false", "1", "0"])
  .transform((v) => v === "true" || v === "1")
  .optional();

/** A page size: 1 … max, default `d`. */
export const limit = (d: number, max: number) =>
  z.coerce.number().int().min(1).max(max).default(d).describe(`at most ${max}`);

/**
 * The OpenAPI 3.1 document of `/api/v1`, generated from the routes' zod schemas (zod 4's JSON Schema, draft 2020-12,
 * which OpenAPI 3.1 takes as it is): what a client sends (path, query, body) as the schemas accept it, what it gets
 * back as the handlers give it. Served at /api/v1/openapi.json and rendered at /api-docs.
 */
import { z } from "zod";
import { apiError, type RouteDef } from "./define";
import { INGEST_ROUTE, ROUTES } from "./routes";

type Json = Record<string, unknown>;

const schemaOf = (s: z.ZodType, io: "input" | "output"): Json => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(s, { io, unrepresentable: "any" }) as Json;
  void _drop;
  return rest;
};

function parameters(def: RouteDef): Json[] {
  const out: Json[] = [];
  for (const [where, schema] of [
    ["path", def.params],
    ["query", def.query],
  ] as const) {
    const js = schemaOf(schema, "input") as { properties?: Record<string, Json>; required?: string[] };
    for (const [name, p] of Object.entries(js.properties ?? {}))
      out.push({
        name,
        in: where,
        required: where === "path" || (js.required ?? []).includes(name),
        ...(typeof p.description === "string" ? { description: p.description } : {}),
        schema: p,
      });
  }
  return out;
}

const errors = (codes: number[]) =>
  Object.fromEntries(
    codes.map((c) => [
      String(c),
      {
        description:
          {
            400: "a parameter or body field is wrong (named in `field`)",
            401: "no valid token",
            403: "a read token on a write",
            404: "not found",
          }[c] ?? "error",
        content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
      },
    ]),
  );

export function openApiDocument(): Json {
  const paths: Record<string, Record<string, Json>> = {};
  for (const def of Object.values(ROUTES) as RouteDef[]) {
    const op: Json = {
      operationId: def.id,
      summary: def.summary,
      ...(def.description ? { description: def.description } : {}),
      tags: [def.tag],
      parameters: parameters(def),
      responses: {
        "200": def.binary
          ? {
              description: "the file",
              content: { [def.binary]: { schema: { type: "string", contentMediaType: def.binary } } },
            }
          : { description: "OK", content: { "application/json": { schema: schemaOf(def.response, "output") } } },
        ...errors(def.method === "POST" ? [400, 401, 403, 404] : [400, 401, 404]),
      },
    };
    if (def.body)
      op.requestBody = { required: true, content: { "application/json": { schema: schemaOf(def.body, "input") } } };
    (paths[def.path] ??= {})[def.method.toLowerCase()] = op;
  }
  paths[INGEST_ROUTE.path] = {
    post: {
      operationId: "ingest",
      summary: INGEST_ROUTE.summary,
      tags: ["ingest"],
      parameters: ["run", "system", "model", "benchmark", "dataset", "format", "filename"].map((name) => ({
        name,
        in: "query",
        required: false,
        schema: { type: "string" },
      })),
      requestBody: { required: true, content: { "application/x-ndjson": { schema: { type: "string" } } } },
      responses: {
        "200": {
          description: "the upload's report: traces inserted, duplicates, and every bad line by number",
          content: { "application/json": { schema: { type: "object", additionalProperties: true } } },
        },
        ...errors([400, 401, 403]),
      },
    },
  };
  return {
    openapi: "3.1.0",
    info: {
      title: "Metron API",
      version: "1",
      description:
        "Read everything the pages show and write what a script needs (scores, labels, uploads). With access tokens configured, send `Authorization: Bearer <token>`: a read token reads, a write token also writes. Field names are stable within v1 (docs/api.md).",
    },
    servers: [{ url: "/" }],
    components: {
      schemas: { Error: schemaOf(apiError, "output") },
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    },
    security: [{ bearer: [] }, {}],
    paths,
  };
}

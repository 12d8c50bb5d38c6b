/** Every route of the versioned API (`/api/v1`): the one list the handlers and the OpenAPI document are made from. */
import { z } from "zod";
import { scoreInput } from "@/lib/scores/scores";
import { flag, limit, noParams, route } from "./define";
import * as s from "./schemas";

const runId = z.object({ runId: z.string().min(1).max(200) });
const traceId = z.object({ traceId: z.string().min(1).max(200) });
const cursor = z.string().max(400).optional().describe("next_cursor of the page before");

export const ROUTES = {
  listRuns: route({
    id: "listRuns",
    method: "GET",
    path: "/api/v1/runs",
    tag: "runs",
    summary: "The runs, with their summary metrics",
    params: noParams,
    query: z.object({
      dataset: z.string().max(200).optional(),
      system: z.string().max(500).optional(),
      model: z.string().max(500).optional(),
      tag: z.string().max(200).optional(),
      archived: flag.describe("include archived runs"),
    }),
    response: z.object({ runs: z.array(s.run) }),
  }),
  getRun: route({
    id: "getRun",
    method: "GET",
    path: "/api/v1/runs/{runId}",
    tag: "runs",
    summary: "One run: its summary metrics, tags and description, and its scores summarized",
    params: runId,
    query: z.object({}),
    response: z.object({
      run: s.run.extend({ tags: z.array(z.string()), description: z.string().nullable() }),
      scores: z.array(s.scoreSummary),
    }),
  }),
  listRunTraces: route({
    id: "listRunTraces",
    method: "GET",
    path: "/api/v1/runs/{runId}/traces",
    tag: "traces",
    summary: "A run's traces with their per-trace metrics, a page at a time (by trace id)",
    params: runId,
    query: z.object({ limit: limit(200, 1000), cursor }),
    response: z.object({ traces: z.array(s.traceRow), next_cursor: z.string().nullable() }),
  }),
  getRunScores: route({
    id: "getRunScores",
    method: "GET",
    path: "/api/v1/runs/{runId}/scores",
    tag: "scores",
    summary: "A run's scores summarized: mean with a 95 % interval, or shares per category",
    params: runId,
    query: z.object({}),
    response: z.object({ scores: z.array(s.scoreSummary) }),
  }),
  getTrace: route({
    id: "getTrace",
    method: "GET",
    path: "/api/v1/traces/{traceId}",
    tag: "traces",
    summary: "One trace: its fields, metrics, step summaries and scores",
    params: traceId,
    query: z.object({}),
    response: s.traceDetail,
  }),
  getStep: route({
    id: "getStep",
    method: "GET",
    path: "/api/v1/traces/{traceId}/steps/{seq}",
    tag: "traces",
    summary: "One step's whole text: arguments, result, message",
    params: traceId.extend({ seq: z.coerce.number().int().min(0) }),
    query: z.object({}),
    response: s.stepDetail,
  }),
  listLabels: route({
    id: "listLabels",
    method: "GET",
    path: "/api/v1/traces/{traceId}/labels",
    tag: "labels",
    summary: "A trace's labels (and its steps')",
    params: traceId,
    query: z.object({}),
    response: z.object({
      labels: z.array(z.object({ seq: z.number().int(), label: z.string(), who: z.string(), at: z.string() })),
    }),
  }),
  setLabel: route({
    id: "setLabel",
    method: "POST",
    path: "/api/v1/traces/{traceId}/labels",
    tag: "labels",
    summary: "Set (on: true) or remove a label on a trace or one of its steps",
    params: traceId,
    query: z.object({}),
    body: z.object({
      label: z.string().min(1).max(200),
      seq: z.number().int().min(-1).default(-1),
      on: z.boolean().default(true),
    }),
    response: z.object({
      labels: z.array(z.object({ seq: z.number().int(), label: z.string(), who: z.string(), at: z.string() })),
    }),
  }),
  setScores: route({
    id: "setScores",
    method: "POST",
    path: "/api/v1/scores",
    tag: "scores",
    summary: "Set scores on traces (a batch; the same trace, step and name replace what was set)",
    description:
      "A score's kind follows its value: a number, a boolean, or a category (text); a name keeps one kind. Each refused score is named by its index.",
    params: noParams,
    query: z.object({}),
    // An item that is not a valid score does not refuse the batch: it is named by its index in the answer's errors,
    // and the valid ones are stored (setScores validates each).
    body: z.object({
      scores: z
        .array(
          z
            .union([scoreInput, z.looseObject({})])
            .describe("a score; one that does not validate is refused by its index in the answer, the others stored"),
        )
        .min(1)
        .max(10_000),
    }),
    response: s.setScoresReport,
  }),
  listDatasets: route({
    id: "listDatasets",
    method: "GET",
    path: "/api/v1/datasets",
    tag: "datasets",
    summary: "The imported datasets",
    params: noParams,
    query: z.object({}),
    response: z.object({ datasets: z.array(s.dataset) }),
  }),
  listQuestions: route({
    id: "listQuestions",
    method: "GET",
    path: "/api/v1/datasets/{datasetId}/questions",
    tag: "datasets",
    summary: "A dataset's questions with their gold SQL and gold tables, a page at a time",
    params: z.object({ datasetId: z.string().min(1).max(200) }),
    query: z.object({ limit: limit(500, 5000), cursor }),
    response: z.object({ questions: z.array(s.question), next_cursor: z.string().nullable() }),
  }),
  experiments: route({
    id: "experiments",
    method: "GET",
    path: "/api/v1/experiments",
    tag: "experiments",
    summary: "The Experiments matrix: the same cells and numbers as the page and overview.csv, with scores per cell",
    params: noParams,
    query: z.object({
      dataset: z.string().max(200).optional(),
      experiment: z.string().max(200).optional(),
      sweeps: flag,
      archived: flag,
    }),
    response: z.object({
      cells: z.array(
        z.object({ figures: s.overviewCell, run_ids: z.array(z.string()), scores: z.array(s.scoreSummary) }),
      ),
    }),
  }),
  compare: route({
    id: "compare",
    method: "GET",
    path: "/api/v1/compare",
    tag: "experiments",
    summary: "Runs compared with a baseline: paired outcomes with McNemar's test, and each score's paired test",
    params: noParams,
    query: z.object({
      runs: z.string().min(1).max(4000).describe("run ids, comma-separated"),
      baseline: z.string().max(200).optional(),
    }),
    response: z.object({
      runs: z.array(z.object({ id: z.string(), name: z.string(), system: z.string(), model: z.string() })),
      baseline: z.string(),
      aligned: z.number().int(),
      versus: z.array(
        z
          .object({
            fixed: z.number().int(),
            regressed: z.number().int(),
            both_right: z.number().int(),
            both_wrong: z.number().int(),
            unknown: z.number().int(),
            mcnemar_p: z.number().nullable(),
          })
          .nullable(),
      ),
      scores: z.array(z.object({ name: z.string(), kind: z.string(), versus: z.array(s.pairedScore.nullable()) })),
    }),
  }),
  search: route({
    id: "search",
    method: "GET",
    path: "/api/v1/search",
    tag: "search",
    summary: "Full-text and structured search over traces (docs/search.md), with score:NAME>X terms",
    params: noParams,
    query: z.object({ q: z.string().min(1).max(2000), limit: limit(50, 1000) }),
    response: z.object({
      total: z.number().int(),
      capped: z.boolean(),
      hits: z.array(
        z.object({
          trace_id: z.string(),
          run_id: z.string(),
          question_id: z.string(),
          sample: z.number().int(),
          correct: z.number().int().nullable(),
          snippets: z.array(z.object({ seq: z.number().int().nullable(), field: z.string(), text: z.string() })),
        }),
      ),
    }),
  }),
  exportTable: route({
    id: "exportTable",
    method: "GET",
    path: "/api/v1/export/{table}",
    tag: "export",
    summary: "A table of the store as Parquet (runs, traces, steps, labels, scores), typed columns",
    params: z.object({
      table: z.enum(["runs.parquet", "traces.parquet", "steps.parquet", "labels.parquet", "scores.parquet"]),
    }),
    query: z.object({ run: z.string().max(200).optional().describe("only this run's rows") }),
    response: z.unknown(),
    binary: "application/vnd.apache.parquet",
  }),
  openapi: route({
    id: "openapi",
    method: "GET",
    path: "/api/v1/openapi.json",
    tag: "meta",
    summary: "This document",
    params: noParams,
    query: z.object({}),
    response: z.record(z.string(), z.unknown()),
  }),
} as const;

/** The upload route (its body is the file itself, streamed: it keeps the upload route's own handler). */
export const INGEST_ROUTE = {
  path: "/api/v1/ingest",
  summary: "Upload a trace file (JSONL or a foreign format) as the request body; the report the CLI prints",
};

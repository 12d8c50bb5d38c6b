/**
 * The versioned API as a script uses it (issue 33): list runs, page through 1,000 traces, post 1,000 scores, read
 * back the run's score mean and interval as the run page computes them, the Experiments cells and a comparison with
 * each score's paired test, search by score; every route under app/api/v1 is in the OpenAPI document, and every
 * response received here validates against it.
 */
import { readdirSync, statSync } from "node:fs";
import path from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { tempDb, chunksOf } from "@/lib/testing/db";
import { importSpiderDe } from "@/lib/testing/spider-de";
import { ingestStream } from "@/lib/ingest/ingest";
import { jsonl } from "@/lib/testing/factories";
import { openApiDocument } from "@/lib/api/openapi";
import { summarizeRunScores } from "@/lib/scores/scores";
import { many, qb } from "@/lib/db/typed";
import { sharedData } from "@/lib/testing/shared-data";
import { readFileSync } from "node:fs";

const store = tempDb();
vi.mock("@/lib/db/store", () => ({ getSql: async () => store.sql }));

const doc = openApiDocument() as {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
  >;
  components: { schemas: Record<string, object> };
};
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: "metron", components: doc.components }, "metron");

/** Calls a route module's handler as Next does, and checks the answer against the document. */
async function call(
  file: string,
  method: "GET" | "POST",
  url: string,
  params: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; json: Record<string, unknown> }> {
  const mod = (await import(/* @vite-ignore */ path.resolve("app/api/v1", file))) as Record<
    string,
    (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>
  >;
  const request = new Request(`http://localhost${url}`, {
    method,
    ...(body ? { body: JSON.stringify(body), headers: { "Content-Type": "application/json" } } : {}),
  });
  // As Next calls it: a route without dynamic segments gets no params at all.
  const res = await mod[method](request, {
    params: Promise.resolve(Object.keys(params).length ? params : undefined) as Promise<Record<string, string>>,
  });
  const json = (await res.json()) as Record<string, unknown>;
  const template = "/api/v1/" + path.dirname(file).replace(/\[(\w+)\]/g, "{$1}");
  const op = doc.paths[template.replace(/\/\.$/, "")]?.[method.toLowerCase()];
  expect(op, `${template} in the document`).toBeDefined();
  const schema = op.responses[String(res.status)]?.content?.["application/json"]?.schema;
  expect(schema, `${template} ${res.status} described`).toBeDefined();
  // Errors point at the document's Error schema; the others are inline.
  const validate = ajv.compile(
    JSON.stringify(schema).includes("#/components/") ? { $ref: "metron#/components/schemas/Error" } : schema!,
  );
  const ok = validate(json);
  expect(ok, `${template}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  return { status: res.status, json };
}

const spider = JSON.parse(readFileSync(sharedData("spider-de", "dev.json"), "utf8")) as {
  query: string;
  db_id: string;
}[];
const line = (run: string, system: string, i: number) => ({
  run: { name: run, system, model: "m", benchmark: "spider-de" },
  question: { id: String(i) },
  steps: [
    { type: "tool_call", tool: "list_tables", args: {}, result: "x" },
    { type: "tool_call", tool: "submit_final_query", args: { query: spider[i].query } },
  ],
  final_sql: spider[i].query,
  outcome: { status: "submitted", correct: (i * (system === "No Directives" ? 7 : 11)) % 10 < 6 },
  usage: { input_tokens: 100 + i, output_tokens: 10 },
});

let runA = "";
let runB = "";
beforeAll(async () => {
  await importSpiderDe(store);
  const lines = [
    ...Array.from({ length: 1000 }, (_, i) => line("A", "No Directives", i)),
    ...Array.from({ length: 1000 }, (_, i) => line("B", "Sophrosyne", i)),
  ];
  await ingestStream(store.sql, chunksOf(jsonl(...lines), 1 << 20));
}, 120_000);
afterAll(() => store.cleanup());

describe("the v1 API, as a script uses it", () => {
  it("lists runs by dataset and pages through a run's 1,000 traces", async () => {
    const { json } = await call("runs/route.ts", "GET", "/api/v1/runs?dataset=spider-de", {});
    const runs = json.runs as { id: string; name: string; metrics: { traces: number; ex: { share: number } } }[];
    expect(runs.map((r) => r.name).sort()).toEqual(["A", "B"]);
    runA = runs.find((r) => r.name === "A")!.id;
    runB = runs.find((r) => r.name === "B")!.id;
    expect(runs[0].metrics.traces).toBe(1000);
    const seen = new Set<string>();
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { json: page } = await call(
        "runs/[runId]/traces/route.ts",
        "GET",
        `/api/v1/runs/${runA}/traces?limit=300${cursor ? `&cursor=${cursor}` : ""}`,
        { runId: runA },
      );
      for (const t of page.traces as { id: string }[]) seen.add(t.id);
      cursor = page.next_cursor as string | null;
      pages++;
    } while (cursor);
    expect(seen.size).toBe(1000);
    expect(pages).toBe(4);
  });

  it("takes 1,000 scores and gives back the run's mean and interval as the run page computes them", async () => {
    for (const run of [runA, runB]) {
      const ids: string[] = [];
      let cursor: string | null = null;
      do {
        const { json } = await call(
          "runs/[runId]/traces/route.ts",
          "GET",
          `/api/v1/runs/${run}/traces?limit=1000${cursor ? `&cursor=${cursor}` : ""}`,
          { runId: run },
        );
        ids.push(...(json.traces as { id: string }[]).map((t) => t.id));
        cursor = json.next_cursor as string | null;
      } while (cursor);
      const scores = ids.flatMap((id, i) => [
        { trace_id: id, name: "judge_ok", value: (i * (run === runA ? 3 : 5)) % 7 < 4, source: "llm-judge:fake-judge" },
        { trace_id: id, name: "length", value: (i % 13) + (run === runA ? 0 : 2) },
      ]);
      const { json } = await call("scores/route.ts", "POST", "/api/v1/scores", {}, { scores });
      expect(json).toEqual({ stored: 2000, unknown_traces: 0, errors: [] });
    }
    const { json } = await call("runs/[runId]/scores/route.ts", "GET", `/api/v1/runs/${runA}/scores`, { runId: runA });
    expect(json.scores).toEqual(await summarizeRunScores(store.sql, [runA]));
    const judge = (json.scores as { name: string; n: number; mean: { low: number; high: number } }[]).find(
      (s) => s.name === "judge_ok",
    )!;
    expect(judge.n).toBe(1000);
    expect(judge.mean.low).toBeLessThan(judge.mean.high);
    // A batch with bad scores: each named by its index and field, the valid one stored.
    const [one] = await many(
      store.sql,
      qb(store.sql).selectFrom("traces").select("id").where("run_id", "=", runA).orderBy("id", "desc").limit(1),
    );
    const mixed = await call(
      "scores/route.ts",
      "POST",
      "/api/v1/scores",
      {},
      {
        scores: [
          { trace_id: one.id, name: "a b", value: 1 },
          { name: "checked", value: true },
          { trace_id: one.id, name: "checked", value: true, comment: "kept" },
        ],
      },
    );
    expect(mixed.status).toBe(200);
    expect(mixed.json).toEqual({
      stored: 1,
      unknown_traces: 0,
      errors: [
        { index: 0, message: expect.stringMatching(/^name: /) },
        { index: 1, message: expect.stringMatching(/^trace_id: /) },
      ],
    });
    // The envelope itself is still checked: not a list of scores is refused whole, with the field named.
    const bad = await call("scores/route.ts", "POST", "/api/v1/scores", {}, { scores: "all of them" });
    expect(bad.status).toBe(400);
    expect(bad.json.field).toBe("body.scores");
  });

  it("gives the Experiments cells and a comparison with each score's paired test, and finds traces by score", async () => {
    const { json } = await call("experiments/route.ts", "GET", "/api/v1/experiments?dataset=spider-de", {});
    const cells = json.cells as { figures: Record<string, unknown>; scores: { name: string }[] }[];
    expect(cells).toHaveLength(2);
    expect(cells.every((c) => c.scores.some((s) => s.name === "judge_ok"))).toBe(true);
    expect(cells[0].figures).toHaveProperty("ex_mean_over_questions");
    const cmp = await call("compare/route.ts", "GET", `/api/v1/compare?runs=${runA},${runB}&baseline=${runA}`, {});
    const judge = (cmp.json.scores as { name: string; versus: ({ mcnemar: { p: number } } | null)[] }[]).find(
      (s) => s.name === "judge_ok",
    )!;
    expect(judge.versus[0]).toBeNull();
    expect(judge.versus[1]!.mcnemar!.p).toBeGreaterThan(0);
    const hits = await call(
      "search/route.ts",
      "GET",
      `/api/v1/search?q=${encodeURIComponent(`score:length>11 run:${runA}`)}&limit=1000`,
      {},
    );
    // length is i % 13 on run A: 12 for one trace in 13
    expect(hits.json.total).toBe(Math.floor(1000 / 13) + (1000 % 13 > 12 ? 1 : 0));
  });

  it("answers a missing run with 404 naming the field, and reads a trace, a step and the datasets", async () => {
    const missing = await call("runs/[runId]/route.ts", "GET", "/api/v1/runs/nope", { runId: "nope" });
    expect(missing).toMatchObject({ status: 404, json: { field: "runId" } });
    const { json: page } = await call("runs/[runId]/traces/route.ts", "GET", `/api/v1/runs/${runA}/traces?limit=1`, {
      runId: runA,
    });
    const id = (page.traces as { id: string }[])[0].id;
    const { json: trace } = await call("traces/[traceId]/route.ts", "GET", `/api/v1/traces/${id}`, { traceId: id });
    expect((trace.steps as unknown[]).length).toBe(2);
    expect((trace.scores as { name: string }[]).map((s) => s.name)).toEqual(["judge_ok", "length"]);
    const { json: step } = await call("traces/[traceId]/steps/[seq]/route.ts", "GET", `/api/v1/traces/${id}/steps/1`, {
      traceId: id,
      seq: "1",
    });
    expect(step.tool).toBe("submit_final_query");
    const { json: ds } = await call("datasets/route.ts", "GET", "/api/v1/datasets", {});
    expect((ds.datasets as { id: string; questions: number }[])[0]).toMatchObject({ id: "spider-de", questions: 1030 });
    const { json: qs } = await call(
      "datasets/[datasetId]/questions/route.ts",
      "GET",
      "/api/v1/datasets/spider-de/questions?limit=1000",
      { datasetId: "spider-de" },
    );
    expect((qs.questions as unknown[]).length).toBe(1000);
    expect(qs.next_cursor).not.toBeNull();
    await call(
      "traces/[traceId]/labels/route.ts",
      "POST",
      `/api/v1/traces/${id}/labels`,
      { traceId: id },
      { label: "join" },
    );
    const { json: labels } = await call("traces/[traceId]/labels/route.ts", "GET", `/api/v1/traces/${id}/labels`, {
      traceId: id,
    });
    expect(labels.labels).toEqual([expect.objectContaining({ label: "join", seq: -1 })]);
  });

  it("describes every route under app/api/v1 in its OpenAPI document, whose schemas refuse a wrong answer", () => {
    const runs = doc.paths["/api/v1/runs"].get.responses["200"].content!["application/json"].schema;
    expect(ajv.validate(runs, { runs: [{ id: 1 }] })).toBe(false);
    const routes: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(dir)) {
        const p = path.join(dir, e);
        if (statSync(p).isDirectory()) walk(p);
        else if (e === "route.ts")
          routes.push("/" + path.relative("app", path.dirname(p)).replace(/\[(\w+)\]/g, "{$1}"));
      }
    };
    walk("app/api/v1");
    expect(routes.length).toBeGreaterThan(14);
    for (const r of routes) expect(Object.keys(doc.paths), r).toContain(r);
  });
});

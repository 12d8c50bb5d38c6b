/**
 * docs/notebooks.md, run (issue 33): its Python standard-library client against the API served over HTTP (when
 * python3 is on the machine), and its DuckDB query over the Parquet export, whose EX per cell must be the
 * Experiments page's; the Parquet files read back with DuckDB give the store's counts and sums.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import os from "node:os";
import path from "node:path";
import { DuckDBInstance } from "@duckdb/node-api";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ROUTES } from "@/lib/api/routes";
import { exportParquet } from "@/lib/api/parquet";
import { apiExperiments } from "@/lib/api/views";
import { count, countN, many, qb } from "@/lib/db/typed";
import { archiveRun } from "@/lib/ingest/curate";
import { ingestStream } from "@/lib/ingest/ingest";
import { setScores, summarizeRunScores } from "@/lib/scores/scores";
import { chunksOf, tempDb } from "@/lib/testing/db";
import { jsonl } from "@/lib/testing/factories";
import { sharedData } from "@/lib/testing/shared-data";
import { importSpiderDe } from "@/lib/testing/spider-de";

const store = tempDb();
vi.mock("@/lib/db/store", () => ({ getSql: async () => store.sql }));

const root = path.resolve(import.meta.dirname, "..", "..");
/** A code block of docs/notebooks.md, by the `file=` name in its info string. */
function block(file: string): string {
  const doc = readFileSync(path.join(root, "docs", "notebooks.md"), "utf8");
  const m = new RegExp("```\\w+ file=" + file.replace(".", "\\.") + "\\n([\\s\\S]*?)\\n```").exec(doc);
  if (!m) throw new Error(`docs/notebooks.md has no block file=${file}`);
  return m[1];
}

const spider = JSON.parse(readFileSync(sharedData("spider-de", "dev.json"), "utf8")) as { query: string }[];
const line = (run: string, system: string, i: number, sample = 0) => ({
  run: { name: run, system, model: "m", benchmark: "spider-de" },
  question: { id: String(i % 1000) },
  sample,
  steps: [
    { type: "tool_call", tool: "list_tables", args: {}, result: "x" },
    ...(i % 3 ? ["sänger", "stadion"] : []).map((t) => ({
      type: "tool_call",
      tool: "describe_table",
      args: { table_name: t },
      result: "x",
    })),
    { type: "tool_call", tool: "submit_final_query", args: { query: spider[i % 1000].query } },
  ],
  final_sql: spider[i % 1000].query,
  // a few traces unjudged: unknown is not wrong
  outcome: {
    status: "submitted",
    ...(i % 17 ? { correct: ((i + sample * 5) * (system === "A" ? 7 : 11)) % 10 < 6 } : {}),
  },
  usage: { input_tokens: 100 + i, output_tokens: 10 },
});

/** The API's routes served over HTTP as Next serves them: the handler modules, called with the request. */
function serve(): Promise<{ server: Server; url: string }> {
  const table = Object.values(ROUTES).map((r) => ({
    method: r.method,
    pattern: new RegExp(`^${r.path.replace(/\{(\w+)\}/g, "(?<$1>[^/]+)")}$`),
    file: path.join(root, "app", r.path.slice(1).replace(/\{(\w+)\}/g, "[$1]"), "route.ts"),
  }));
  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, "http://127.0.0.1");
    const hit = table
      .map((t) => ({ t, m: t.method === req.method ? t.pattern.exec(url.pathname) : null }))
      .find((x) => x.m);
    if (!hit) return void res.writeHead(404).end();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const mod = (await import(/* @vite-ignore */ hit.t.file)) as Record<
      string,
      (r: Request, c: { params: Promise<Record<string, string>> }) => Promise<Response>
    >;
    const answer = await mod[req.method!](
      new Request(`http://127.0.0.1${req.url}`, {
        method: req.method,
        headers: req.headers as Record<string, string>,
        ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
      }),
      {
        params: Promise.resolve(
          Object.fromEntries(Object.entries(hit.m!.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)])),
        ),
      },
    );
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const a = server.address() as { port: number };
      resolve({ server, url: `http://127.0.0.1:${a.port}` });
    }),
  );
}

const dir = mkdtempSync(path.join(os.tmpdir(), "metron-notebooks-"));
beforeAll(async () => {
  await importSpiderDe(store);
  const lines = [
    ...Array.from({ length: 1000 }, (_, i) => line("run A", "A", i)),
    ...Array.from({ length: 1000 }, (_, i) => line("run B", "B", i)),
    // a second sample of some questions in another run of A's cell (pooled), and an archived run (left out)
    ...Array.from({ length: 200 }, (_, i) => line("run A again", "A", i * 3 + 1, 1)),
    ...Array.from({ length: 50 }, (_, i) => line("run A archived", "A", i, 2)),
    // traces without a dataset (no gold tables), and two runs of the same name
    ...[0, 1].map((i) => ({ ...line("no gold", "C", i), run: { name: "no gold", system: "C", model: "m" } })),
    { ...line("twice", "C", 5), run: { name: "twice", system: "C", model: "m" } },
    { ...line("twice", "D", 6), run: { name: "twice", system: "D", model: "m" } },
  ];
  await ingestStream(store.sql, chunksOf(jsonl(...lines), 1 << 20));
  const [archived] = await many(
    store.sql,
    qb(store.sql).selectFrom("runs").select("id").where("name", "=", "run A archived"),
  );
  await archiveRun(store.sql, archived.id, true, "test");
}, 180_000);
afterAll(() => {
  store.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const python = spawnSync("python3", ["--version"]).status === 0;

describe("docs/notebooks.md", () => {
  it.runIf(python)(
    "its Python client (standard library only) pages through 1,000 traces, posts 1,000 scores and reads back the run page's mean and interval",
    async () => {
      const { server, url } = await serve();
      try {
        const script = path.join(dir, "metron_client.py");
        writeFileSync(script, block("metron_client.py"));
        const client = (arg: string) =>
          new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
            // not spawnSync: the server answering it lives in this process
            const child = spawn("python3", [script, arg], { env: { ...process.env, METRON_URL: url } });
            let stdout = "";
            let stderr = "";
            child.stdout.on("data", (d) => (stdout += d));
            child.stderr.on("data", (d) => (stderr += d));
            child.on("close", (status) => resolve({ status, stdout, stderr }));
          });
        // A run nobody can judge this way (no gold tables), and a name two runs share: said, no traceback.
        for (const [arg, said] of [
          ["no gold", /none of the run's 2 traces has gold tables/],
          ["twice", /2 runs are called 'twice': give one run's id/],
          ["nope", /0 runs are called 'nope'/],
        ] as const) {
          const r = await client(arg);
          expect(r.status, arg).toBe(1);
          expect(r.stderr).toMatch(said);
          expect(r.stderr).not.toMatch(/Traceback/);
        }
        const run = await client("run B");
        expect(run.stderr).toBe("");
        expect(run.status).toBe(0);
        const out = JSON.parse(run.stdout) as {
          run: string;
          traces: number;
          scored: number;
          frugal: { n: number; mean: { estimate: number; low: number; high: number } };
        };
        expect(out.traces).toBe(1000);
        const traces = await many(
          store.sql,
          qb(store.sql).selectFrom("traces").select(["over_exploration"]).where("run_id", "=", out.run),
        );
        const known = traces.filter((t) => t.over_exploration !== null);
        expect(out.scored).toBe(known.length);
        expect(out.scored).toBeGreaterThan(900); // gold tables known for most questions: the others are left unscored
        // What the run page shows (summarizeRunScores), and what the judge decided.
        const [page] = (await summarizeRunScores(store.sql, [out.run])).filter((s) => s.name === "frugal");
        expect(out.frugal).toEqual(JSON.parse(JSON.stringify(page)));
        expect(out.frugal.mean.estimate).toBeCloseTo(
          known.filter((t) => t.over_exploration! <= 0).length / known.length,
          12,
        );
        expect(out.frugal.mean.low).toBeLessThan(out.frugal.mean.estimate);
      } finally {
        server.close();
      }
    },
    120_000,
  );

  it("its DuckDB query over the Parquet export reproduces EX per cell of the Experiments page; the files hold the store's counts and sums", async () => {
    const [b] = await many(store.sql, qb(store.sql).selectFrom("runs").select("id").where("name", "=", "run B"));
    const ids = await many(store.sql, qb(store.sql).selectFrom("traces").select("id").where("run_id", "=", b.id));
    await setScores(
      store.sql,
      ids.map((t, i) => ({ trace_id: t.id, name: "judge", value: i % 4 === 0 })),
    );
    const written = await exportParquet(store.sql, dir);
    const db = await (await DuckDBInstance.create(":memory:")).connect();
    const rows = async (q: string) => (await db.runAndReadAll(q)).getRowObjectsJson();
    const file = (t: string) => `'${path.join(dir, `${t}.parquet`)}'`;
    // Counts: every table as the store has it.
    for (const [table, storeTable] of [
      ["runs", "runs"],
      ["traces", "traces"],
      ["steps", "steps"],
      ["labels", "labels"],
      ["scores", "scores"],
    ] as const) {
      const [{ n }] = await rows(`SELECT count(*) AS n FROM read_parquet(${file(table)})`);
      const stored = await count(store.sql, qb(store.sql).selectFrom(storeTable).select(countN));
      expect(Number(n), table).toBe(stored);
      expect(written.find((w) => w.table === table)!.rows).toBe(stored);
    }
    // Sums, typed: integers, booleans, doubles.
    const [sums] = await rows(
      `SELECT sum(tool_call_count) AS calls, sum(input_tokens) AS tokens, count(correct) AS judged,
              sum(CASE WHEN correct THEN 1 ELSE 0 END) AS correct, typeof(any_value(correct)) AS bool
       FROM read_parquet(${file("traces")})`,
    );
    const [own] = await many(
      store.sql,
      qb(store.sql)
        .selectFrom("traces")
        .select((eb) => [
          eb.fn.sum<number>("tool_call_count").as("calls"),
          eb.fn.sum<number>("input_tokens").as("tokens"),
        ]),
    );
    expect(Number(sums.calls)).toBe(Number(own.calls));
    expect(Number(sums.tokens)).toBe(Number(own.tokens));
    expect(sums.bool).toBe("BOOLEAN");
    const [scoreSum] = await rows(`SELECT sum(value) AS t FROM read_parquet(${file("scores")}) WHERE name = 'judge'`);
    expect(Number(scoreSum.t)).toBe(ids.filter((_, i) => i % 4 === 0).length);

    // The docs' query, run where the files are: EX per cell as the Experiments page shows it.
    const cwd = process.cwd();
    process.chdir(dir);
    let ex: Record<string, unknown>[];
    try {
      ex = await rows(block("ex_per_cell.sql"));
    } finally {
      process.chdir(cwd);
    }
    const page = await apiExperiments(store.sql, {});
    expect(page.cells).toHaveLength(2);
    expect(ex).toHaveLength(2);
    for (const cell of page.cells) {
      const mine = ex.find((r) => r.system === cell.figures.system && r.model === cell.figures.model)!;
      expect(mine, `${cell.figures.system}`).toBeDefined();
      expect(Number(mine.ex)).toBeCloseTo(Number(cell.figures.ex_mean_over_questions), 12);
      expect(Number(mine.questions)).toBe(Number(cell.figures.questions));
    }
    // The archived run is out, the pooled second run in: A's cell is not run A's alone.
    const [onlyA] = await rows(
      `SELECT avg(s) AS ex FROM (SELECT avg(CASE WHEN t.correct THEN 1.0 ELSE 0.0 END) AS s FROM read_parquet(${file("traces")}) t
       JOIN read_parquet(${file("runs")}) r ON r.id = t.run_id WHERE r.name = 'run A' AND t.correct IS NOT NULL GROUP BY t.question_id)`,
    );
    const cellA = page.cells.find((c) => c.figures.system === "A")!;
    expect(Number(onlyA.ex)).not.toBeCloseTo(Number(cellA.figures.ex_mean_over_questions), 6);
  }, 120_000);
});

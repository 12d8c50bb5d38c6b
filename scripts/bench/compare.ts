/**
 * `npm run bench -- compare [--questions 1000] [--traces 100000]`: three runs (No Directives, Sophrosyne,
 * Sophrosyne-Oracle) over the same questions of a dataset registered first (its questions and schema-only databases
 * written by the bench), with as many samples per question as make `--traces` in all, ingested into a fresh store;
 * then the production build serves it and the server time of the experiments overview, a run page and the compare
 * page of the three runs is measured: each page's true first request on a server started for it alone (no warm-up),
 * then the p50 of 7, each checked to show what it is timed for. Targets: run page p50 ≤ 150 ms at 100k traces,
 * compare ≤ 300 ms.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { importDataset } from "@/lib/datasets/import-dataset";
import type { Sql } from "@/lib/db/sql";
import { openStore } from "@/lib/db/store";
import { one, raw } from "@/lib/db/typed";
import { ingestStream } from "@/lib/ingest/ingest";
import { seededRandom } from "@/lib/metrics/stats";
import { benchPostgres } from "./postgres";
import { startServer, timePage } from "./server";

const SYSTEMS = [
  ["No Directives", 0.55, 6],
  ["Sophrosyne", 0.6, 3],
  ["Sophrosyne-Oracle", 0.7, 2],
] as const;
const TABLES = ["customers", "orders", "products", "suppliers", "regions", "payments", "shipments", "reviews"];
/** The dataset the runs answer (their `run.benchmark`): the experiments overview shows only runs with a dataset. */
const DATASET = "bench-compare";
const DATABASES = 7;

const goldOf = (q: number) => TABLES.slice(q % 5, (q % 5) + 1 + (q % 3));
const goldSqlOf = (q: number) => `SELECT * FROM ${goldOf(q).join(" JOIN ")}`;

/**
 * Registers the dataset: its questions (BIRD's format) and one schema-only database per `db_id` (DDL), so that each
 * question's gold tables are read by EXPLAIN, as for a real benchmark.
 */
async function registerDataset(sql: Sql, questions: number, dir: string): Promise<void> {
  const ddl = path.join(dir, "ddl");
  mkdirSync(ddl, { recursive: true });
  for (let d = 0; d < DATABASES; d++)
    writeFileSync(
      path.join(ddl, `db${d}.sql`),
      TABLES.map((t) => `CREATE TABLE ${t} (${t}_id INTEGER PRIMARY KEY, name TEXT);`).join("\n"),
    );
  const file = path.join(dir, "questions.json");
  writeFileSync(
    file,
    JSON.stringify(
      Array.from({ length: questions }, (_, q) => ({
        question_id: q,
        db_id: `db${q % DATABASES}`,
        question: `How many rows do ${goldOf(q).join(" and ")} have together (question ${q})?`,
        evidence: "",
        SQL: goldSqlOf(q),
        difficulty: ["simple", "moderate", "challenging"][q % 3],
      })),
    ),
  );
  await importDataset(sql, { name: DATASET, format: "bird", questions: file, ddl }, dir);
}

function* lines(questions: number, samples: number): Generator<string> {
  const random = seededRandom(7);
  for (const [system, accuracy, extra] of SYSTEMS) {
    for (let q = 0; q < questions; q++) {
      const gold = goldOf(q);
      for (let s = 0; s < samples; s++) {
        const explored = [...gold, ...TABLES.slice(0, Math.floor(random() * extra))];
        yield JSON.stringify({
          run: { name: `bench ${system}`, system, model: "bench-model", benchmark: DATASET },
          question: { id: String(q) },
          sample: s,
          steps: [
            {
              type: "tool_call",
              tool: "list_tables",
              args: {},
              result: TABLES.join("\n"),
              usage: { input_tokens: 900, output_tokens: 20 },
            },
            ...explored.map((t) => ({
              type: "tool_call",
              tool: "describe_table",
              args: { table_name: t },
              result: `${t}_id INTEGER`,
              usage: { input_tokens: 1100, output_tokens: 30 },
            })),
            { type: "tool_call", tool: "submit_final_query", args: { query: goldSqlOf(q) } },
          ],
          outcome: { correct: random() < accuracy },
        });
      }
    }
  }
}

type Timings = Record<string, { first: number; p50: number; max: number; bytes: number; shows: boolean }>;

/** Ingests the runs into a store (SQLite file, or PostgreSQL when `databaseUrl`), serves it, times the pages. */
async function measure(
  questions: number,
  samples: number,
  dir: string,
  port: number,
  databaseUrl?: string,
): Promise<Timings> {
  const store = path.join(dir, "store.db");
  const sql = await openStore(databaseUrl);
  try {
    return await measureOn(
      sql,
      questions,
      samples,
      store,
      port,
      path.join(dir, databaseUrl ? "pg" : "sqlite"),
      databaseUrl,
    );
  } finally {
    await sql.close();
  }
}

async function measureOn(
  sql: Sql,
  questions: number,
  samples: number,
  store: string,
  port: number,
  filesDir: string,
  databaseUrl?: string,
): Promise<Timings> {
  const engine = databaseUrl ? "PostgreSQL" : "SQLite";
  await registerDataset(sql, questions, filesDir);
  const started = performance.now();
  const report = await ingestStream(
    sql,
    (async function* () {
      let batch: string[] = [];
      for (const line of lines(questions, samples)) {
        batch.push(line);
        if (batch.length === 1000) {
          yield Buffer.from(batch.join("\n") + "\n");
          batch = [];
        }
      }
      if (batch.length) yield Buffer.from(batch.join("\n") + "\n");
    })(),
  );
  console.log(
    `${engine}: ingested ${report.inserted} traces (3 runs × ${questions} questions × ${samples} samples) in ${((performance.now() - started) / 1000).toFixed(1)} s`,
  );
  const ids = report.runs.map((r) => r.id);
  const server = await startServer(store, port, databaseUrl);
  try {
    // The server indexes the new traces for search in the background, in short slices: pages are timed once it
    // has caught up (and once while it works, to show what a reader sees meanwhile).
    const indexed = async () =>
      (await one(
        sql,
        raw<{
          done: number;
          total: number;
        }>`SELECT (SELECT count(*) FROM search_indexed) AS done, (SELECT count(*) FROM traces) AS total`,
      ))!;
    const during = await timePage(`${server.url}/runs/${ids[0]}`, 5);
    console.log(
      `${engine}: run page while the search index builds: p50 ${during.p50.toFixed(0)} ms, max ${during.max.toFixed(0)} ms`,
    );
    const t0 = Date.now();
    for (let i = await indexed(); i.done < i.total && Date.now() - t0 < 900_000; i = await indexed())
      await new Promise((r) => setTimeout(r, 2000));
    console.log(`${engine}: search index caught up ${((Date.now() - t0) / 1000).toFixed(0)} s later`);
  } finally {
    server.stop();
    await new Promise((r) => setTimeout(r, 500));
  }
  // Each page on a server started for it alone, without its warm-up: the first request is a true first (the run
  // page was requested above while the index built), then the p50 of seven more. Each page is checked to show what
  // it is timed for: the dataset's matrix with the three systems, the run's traces, the comparison's test.
  const systems = SYSTEMS.map(([s]) => s);
  const out: Timings = {};
  for (const [label, url, shows] of [
    [
      "experiments overview",
      "/experiments",
      (h: string) => h.includes(`matrix-export-${DATASET}`) && systems.every((s) => h.includes(s)),
    ],
    ["run page", `/runs/${ids[0]}`, (h: string) => h.includes('data-testid="traces-table"')],
    ["compare (3 runs)", `/compare?runs=${ids.join(",")}&baseline=${ids[0]}`, (h: string) => h.includes("McNemar")],
  ] as const) {
    const page = await startServer(store, port, databaseUrl, { env: { METRON_WARM_UP: "0" } });
    try {
      const t = await timePage(page.url + url);
      if (t.status !== 200) throw new Error(`${label} answered ${t.status}`);
      const { body, ...timed } = t;
      out[label] = { ...timed, shows: shows(body) };
      console.log(
        `${engine}: ${label.padEnd(22)} first ${t.first.toFixed(0).padStart(5)} ms   p50 ${t.p50.toFixed(0).padStart(5)} ms   max ${t.max.toFixed(0).padStart(5)} ms   ${(t.bytes / 1024).toFixed(0)} kB${out[label].shows ? "" : "   WARNING: the page lacks what it is timed for"}`,
      );
    } finally {
      page.stop();
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  return out;
}

export async function benchCompare(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { questions: { type: "string", default: "1000" }, traces: { type: "string", default: "100000" } },
  });
  const questions = Number(values.questions);
  const samples = Math.max(1, Math.round(Number(values.traces) / (3 * questions)));
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-bench-compare-"));
  process.env.DATABASE_PATH = path.join(dir, "store.db"); // openStore() of the SQLite pass
  try {
    const lite = await measure(questions, samples, dir, 3218);
    console.log(
      "targets: overview p50 ≤ 150 ms, run page p50 ≤ 150 ms, compare ≤ 300 ms and HTML ≤ 200 kB; every first request after a start ≤ 300 ms",
    );
    const pg = await benchPostgres("compare");
    if (!pg) {
      console.log("PostgreSQL: not available here (set METRON_BENCH_DATABASE_URL): SQLite only");
      return 0;
    }
    try {
      const onPg = await measure(questions, samples, dir, 3219, pg.url);
      console.log("\nratio PostgreSQL/SQLite (p50 server time):");
      for (const label of Object.keys(lite))
        console.log(`  ${label.padEnd(22)} ${(onPg[label].p50 / lite[label].p50).toFixed(2)}`);
    } finally {
      await pg.drop();
    }
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

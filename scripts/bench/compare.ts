/**
 * `npm run bench -- compare [--questions 1000] [--traces 100000]`: three runs (No Directives, Sophrosyne,
 * Sophrosyne-Oracle) over the same questions, with as many samples per question as make `--traces` in all,
 * ingested into a fresh store; then the production build serves it and the server time of the experiments
 * overview, a run page and the compare page of the three runs is measured (p50 of 7 after a warm-up).
 * Targets: run page p50 ≤ 150 ms at 100k traces, compare ≤ 300 ms.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
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

function* lines(questions: number, samples: number): Generator<string> {
  const random = seededRandom(7);
  for (const [system, accuracy, extra] of SYSTEMS) {
    for (let q = 0; q < questions; q++) {
      const gold = TABLES.slice(q % 5, (q % 5) + 1 + (q % 3));
      for (let s = 0; s < samples; s++) {
        const explored = [...gold, ...TABLES.slice(0, Math.floor(random() * extra))];
        yield JSON.stringify({
          run: { name: `bench ${system}`, system, model: "bench-model" },
          question: {
            id: String(q),
            db_id: `db${q % 7}`,
            difficulty: ["simple", "moderate", "challenging"][q % 3],
            gold_sql: `SELECT * FROM ${gold.join(" JOIN ")}`,
          },
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
            { type: "tool_call", tool: "submit_final_query", args: { query: `SELECT * FROM ${gold.join(" JOIN ")}` } },
          ],
          outcome: { correct: random() < accuracy },
        });
      }
    }
  }
}

type Timings = Record<string, { first: number; p50: number; max: number; bytes: number }>;

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
  const engine = databaseUrl ? "PostgreSQL" : "SQLite";
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
    const out: Timings = {};
    for (const [label, url] of [
      ["experiments overview", "/experiments"],
      ["run page", `/runs/${ids[0]}`],
      ["compare (3 runs)", `/compare?runs=${ids.join(",")}&baseline=${ids[0]}`],
    ] as const) {
      const t = await timePage(server.url + url);
      if (t.status !== 200) throw new Error(`${label} answered ${t.status}`);
      out[label] = t;
      console.log(
        `${engine}: ${label.padEnd(22)} first ${t.first.toFixed(0).padStart(5)} ms   p50 ${t.p50.toFixed(0).padStart(5)} ms   max ${t.max.toFixed(0).padStart(5)} ms   ${(t.bytes / 1024).toFixed(0)} kB`,
      );
    }
    return out;
  } finally {
    server.stop();
    await sql.close();
  }
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
      "targets: overview p50 ≤ 150 ms and first ≤ 1 s, run page p50 ≤ 150 ms, compare ≤ 300 ms and HTML ≤ 200 kB",
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

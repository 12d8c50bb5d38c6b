/**
 * `npm run bench -- load [--seconds 60] [--readers 50] [--traces 20000] [--engine both|sqlite|postgres]`: the mixed
 * load of a lab's shared server (issue 28), the same on each engine: on a fresh store with the simulated demo and a
 * synthetic run of `--traces` traces (searchable), the built app takes, for `--seconds`, `--readers` clients that
 * each request a page (home, Experiments, a run, a question, compare) or a search after another; an upload of a
 * 1 MB file every 2 s; a sweep of simulated jobs; and evaluations of a demo run one after another. Prints p50, p99
 * and max of the pages and of the searches, the errors, and the PostgreSQL/SQLite ratio of each p99 from this one
 * run. Bound: PostgreSQL's p99 ≤ 2× SQLite's; exits non-zero on a miss. Only loopback traffic; every loop ends with
 * the time.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openStore } from "@/lib/db/store";
import { one, qb } from "@/lib/db/typed";
import { seedDemo } from "@/lib/demo/seed";
import { ingestStream } from "@/lib/ingest/ingest";
import { syncSearchIndex } from "@/lib/search";
import { benchPostgres } from "./postgres";
import { startServer } from "./server";
import { syntheticTraceLine } from "./synthetic";

const PORT = 3471;

interface Figures {
  p50: number;
  p99: number;
  max: number;
  n: number;
  errors: number;
}

const figures = (times: number[], errors: number): Figures => {
  const s = [...times].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
  return { p50: at(0.5), p99: at(0.99), max: s[s.length - 1] ?? NaN, n: s.length, errors };
};

async function loadOn(
  engine: "SQLite" | "PostgreSQL",
  o: { seconds: number; readers: number; traces: number },
): Promise<{ pages: Figures; search: Figures; writes: string } | null> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-load-"));
  const file = path.join(dir, "metron.db");
  const pg = engine === "PostgreSQL" ? await benchPostgres("load") : null;
  if (engine === "PostgreSQL" && !pg) {
    console.log("PostgreSQL: not installed here (METRON_BENCH_DATABASE_URL names a server): skipped");
    return null;
  }
  process.env.DATABASE_PATH = file;
  if (pg) process.env.DATABASE_URL = pg.url;
  else delete process.env.DATABASE_URL;
  const store = await openStore(pg?.url);
  const demo = await seedDemo(store, { dir: path.join(dir, "demo") });
  const run = { name: "load run", system: "No Directives", model: "bench-model" };
  await ingestStream(
    store,
    (async function* () {
      for (let i = 0; i < o.traces; i += 500)
        yield Buffer.from(
          Array.from({ length: Math.min(500, o.traces - i) }, (_, k) => syntheticTraceLine(i + k, 20, run)).join("\n") +
            "\n",
        );
    })(),
  );
  while ((await syncSearchIndex(store, { budgetMs: 60_000, readAhead: true })).pending > 0); // searchable before the load starts
  const runId = (await one(store, qb(store).selectFrom("runs").select("id").where("name", "=", "load run")))!.id;
  const question = (await one(
    store,
    qb(store).selectFrom("traces").select("question_id as q").where("run_id", "=", runId).limit(1),
  ))!.q;
  await store.close();
  Object.assign(process.env, { METRON_SIM_STEP_DELAY_MS: "20", METRON_SWEEP_MAX_JOBS: "100000" });
  const server = await startServer(file, PORT, pg?.url);
  const base = server.url;
  const demoRun = demo.runs[0].id;
  const pages = [
    "/",
    "/experiments",
    `/runs/${encodeURIComponent(runId)}`,
    `/runs/${encodeURIComponent(runId)}/questions/${encodeURIComponent(question)}`,
    `/compare?runs=${demo.runs
      .slice(0, 3)
      .map((r) => r.id)
      .join(",")}`,
  ];
  const searches = [
    "/search?q=describe_table",
    "/search?q=table_a0%20col3",
    "/search?q=%22PRIMARY%20KEY%22",
    "/search?q=tool%3Aread_query",
  ];
  const deadline = Date.now() + o.seconds * 1000;
  const pageTimes: number[] = [];
  const searchTimes: number[] = [];
  let pageErrors = 0;
  let searchErrors = 0;
  let uploads = 0;
  let evaluations = 0;
  const timed = async (url: string, into: number[], onError: () => void) => {
    const t = performance.now();
    try {
      const res = await fetch(`${base}${url}`, { signal: AbortSignal.timeout(120_000) });
      await res.arrayBuffer();
      if (!res.ok) onError();
    } catch {
      onError();
    }
    into.push(performance.now() - t);
  };
  try {
    const sweep = await fetch(`${base}/api/sweeps`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        dataset: "demo-retail",
        selection: { kind: "all" },
        provider: "simulated",
        model: "sim-careful",
        variant: "computed",
        samples: 20,
        concurrency: 4,
        name: "load sweep",
      }),
    });
    if (!sweep.ok) throw new Error(`the sweep was refused: ${await sweep.text()}`);
    await Promise.all([
      ...Array.from({ length: o.readers }, async (_, r) => {
        for (let i = r; Date.now() < deadline; i++) {
          if (i % 4 === 3) await timed(searches[i % searches.length], searchTimes, () => searchErrors++);
          else await timed(pages[i % pages.length], pageTimes, () => pageErrors++);
        }
      }),
      (async () => {
        for (let u = 0; Date.now() < deadline; u++) {
          const body =
            Array.from({ length: 150 }, (_, k) =>
              syntheticTraceLine(1_000_000 + u * 150 + k, 20, { name: `load upload ${u}`, system: "s", model: "m" }),
            ).join("\n") + "\n";
          const res = await fetch(`${base}/api/ingest?filename=load-${u}.jsonl`, { method: "POST", body });
          await res.arrayBuffer();
          if (res.ok) uploads++;
          await new Promise((r) => setTimeout(r, 2000));
        }
      })(),
      (async () => {
        while (Date.now() < deadline) {
          const res = await fetch(`${base}/api/runs/${encodeURIComponent(demoRun)}/evaluate`, {
            method: "POST",
            headers: { "Content-Type": "application/json" },
            body: "{}",
          });
          await res.text();
          if (res.ok) evaluations++;
        }
      })(),
    ]);
  } finally {
    server.stop();
    await new Promise((r) => setTimeout(r, 500));
    await pg?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
  return {
    pages: figures(pageTimes, pageErrors),
    search: figures(searchTimes, searchErrors),
    writes: `${uploads} uploads, ${evaluations} evaluations, a sweep running`,
  };
}

export async function benchLoad(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      seconds: { type: "string", default: "60" },
      readers: { type: "string", default: "50" },
      traces: { type: "string", default: "20000" },
      engine: { type: "string", default: "both" },
    },
  });
  const o = { seconds: Number(values.seconds), readers: Number(values.readers), traces: Number(values.traces) };
  const engines =
    values.engine === "both"
      ? (["SQLite", "PostgreSQL"] as const)
      : values.engine === "postgres"
        ? (["PostgreSQL"] as const)
        : (["SQLite"] as const);
  const results = new Map<string, Awaited<ReturnType<typeof loadOn>>>();
  for (const e of engines) {
    const r = await loadOn(e, o);
    results.set(e, r);
    if (!r) continue;
    const show = (f: Figures) =>
      `p50 ${f.p50.toFixed(0)} ms, p99 ${f.p99.toFixed(0)} ms, max ${f.max.toFixed(0)} ms (${f.n} requests, ${f.errors} errors)`;
    console.log(`${e}: ${o.readers} readers for ${o.seconds} s; ${r.writes}`);
    console.log(`  pages:  ${show(r.pages)}`);
    console.log(`  search: ${show(r.search)}`);
  }
  const s = results.get("SQLite");
  const p = results.get("PostgreSQL");
  if (!s || !p) return 0;
  const pageRatio = p.pages.p99 / s.pages.p99;
  const searchRatio = p.search.p99 / s.search.p99;
  const ok = pageRatio <= 2 && searchRatio <= 2 && p.pages.errors + p.search.errors === 0;
  console.log(
    `PostgreSQL/SQLite p99: pages ${pageRatio.toFixed(2)}, search ${searchRatio.toFixed(2)} (bound ≤ 2, no errors): ${ok ? "met" : "missed"}`,
  );
  return ok ? 0 : 1;
}

/**
 * `npm run bench -- scale [--sizes 10000,100000,1000000] [--run-traces 5000] [--steps 30] [--ingest-max 100000]
 * [--keep] [--reuse DIR]`:
 * stores of growing size, shaped as a lab's store grows — more runs, each of `--run-traces` traces (1,000 questions
 * × 5 samples, three systems) — and per store: its size against its JSONL, the ingest and the search index's time,
 * then, served by the production build started on it, each page's true first request and p50 (checking the page
 * shows what it is timed for), the exports' time and the server's peak RSS, and the growth factor from the
 * smallest store to the largest. Stores above `--ingest-max` traces are synthesized from the largest ingested one
 * (its runs copied under new ids, straight into the store, as ingesting 20 GB would take hours): their search index
 * is not built (the copies are marked indexed without documents, so the server does not spend the bench indexing
 * them), so search is timed only on ingested stores. SQLite only.
 */
import { copyFileSync, createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openConnection } from "@/lib/db/client";
import { asSql, type Sql } from "@/lib/db/sql";
import { openStore } from "@/lib/db/store";
import { many, raw, write } from "@/lib/db/typed";
import { refreshRunTotals } from "@/lib/db/run-totals";
import { ingestFile } from "@/lib/ingest/ingest-file";
import { precomputeExperimentViews, precomputeRunViews, runsWithoutViews } from "@/lib/views/ahead";
import { syncSearchIndex } from "@/lib/search";
import { SEARCH_SPAN } from "@/lib/search/limits";
import { serverAnonMb, serverAnonMbWithoutCheck, serverRssMb } from "./processes";
import { startServer } from "./server";
import { syntheticTraceLine } from "./synthetic";

const ROOT = path.resolve(import.meta.dirname, "..", "..");

const SYSTEMS = ["No Directives", "Sophrosyne", "Sophrosyne-Oracle"];
const QUESTIONS = 1000;

interface Timed {
  first: number;
  p50: number;
  ok: boolean;
}

async function writeJsonl(file: string, traces: number, perRun: number, steps: number): Promise<number> {
  const out = createWriteStream(file);
  for (let i = 0; i < traces; i++) {
    const r = Math.floor(i / perRun);
    const k = i % perRun;
    const run = { name: `scale run ${r}`, system: SYSTEMS[r % SYSTEMS.length], model: `bench-model-${r % 4}` };
    const line = syntheticTraceLine(i, steps, run, {
      questionId: String(k % QUESTIONS),
      sample: Math.floor(k / QUESTIONS),
    });
    if (!out.write(line + "\n")) await new Promise<void>((res) => out.once("drain", () => res()));
  }
  await new Promise<void>((res) => out.end(res));
  return statSync(file).size;
}

const sizeOf = (file: string) => {
  let n = statSync(file).size;
  for (const s of ["-wal", "-shm"])
    try {
      n += statSync(file + s).size;
    } catch {
      // none
    }
  return n;
};

/** Copies the store's runs `times − 1` more times under new ids (synthesized growth; see the header). */
async function synthesize(sql: Sql, times: number) {
  const runs = await many(sql, raw<{ id: string }>`SELECT id FROM runs`);
  for (let c = 1; c < times; c++) {
    await sql.transaction(async (tx) => {
      const sfx = `~${c}`;
      await write(
        tx,
        raw`INSERT INTO runs (id, name, system, model, benchmark, config, dataset_id, tool_roles, version)
          SELECT id || ${sfx}, name || ' copy ' || ${c}, system, model, benchmark, config, dataset_id, tool_roles, 1 FROM runs
          WHERE id IN (SELECT value FROM json_each(${JSON.stringify(runs.map((r) => r.id))}))`,
      );
      const cols = (await many(tx, raw<{ name: string }>`SELECT name FROM pragma_table_info('traces')`)).map(
        (r) => r.name,
      );
      const pick = cols.map((n) =>
        n === "id" ? raw`id || ${sfx}` : n === "run_id" ? raw`run_id || ${sfx}` : raw.id(n),
      );
      await write(
        tx,
        raw`INSERT INTO traces (${raw.join(cols.map((n) => raw.id(n)))}) SELECT ${raw.join(pick)} FROM traces
          WHERE run_id IN (SELECT value FROM json_each(${JSON.stringify(runs.map((r) => r.id))}))`,
      );
      const stepCols = (await many(tx, raw<{ name: string }>`SELECT name FROM pragma_table_info('steps')`)).map(
        (r) => r.name,
      );
      await write(
        tx,
        raw`INSERT INTO steps (${raw.join(stepCols.map((n) => raw.id(n)))})
          SELECT ${raw.join(stepCols.map((n) => (n === "trace_id" ? raw`s.trace_id || ${sfx}` : raw.id("s", n))))}
          FROM steps s JOIN traces t ON t.id = s.trace_id
          WHERE t.run_id IN (SELECT value FROM json_each(${JSON.stringify(runs.map((r) => r.id))}))`,
      );
      await write(
        tx,
        raw`INSERT INTO run_tool_counts SELECT run_id || ${sfx}, tool, role, calls FROM run_tool_counts
          WHERE run_id IN (SELECT value FROM json_each(${JSON.stringify(runs.map((r) => r.id))}))`,
      );
      // Marked indexed, without documents (see the header): the server does not index the copies during the bench.
      await write(
        tx,
        raw`INSERT INTO search_indexed (trace_id, base)
          SELECT t.id || ${sfx}, (SELECT max(base) FROM search_indexed) + ${SEARCH_SPAN} * (row_number() OVER (ORDER BY t.id))
          FROM traces t WHERE t.run_id IN (SELECT value FROM json_each(${JSON.stringify(runs.map((r) => r.id))}))`,
      );
      await refreshRunTotals(
        tx,
        runs.map((r) => r.id + sfx),
      );
    });
  }
}

/**
 * The longest the event loop waited for its next turn from now until `stop()` (a timer every 2 ms notes the gaps;
 * `stop` lets it fire once more, so a block that lasted until the end is counted).
 */
function watchEventLoop(): { stop: () => Promise<number> } {
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
  }, 2);
  return {
    stop: async () => {
      await new Promise((r) => setTimeout(r, 5));
      clearInterval(timer);
      return longest;
    },
  };
}

async function time(url: string, expect: RegExp | null, n = 7): Promise<Timed> {
  const t0 = performance.now();
  const firstBody = await (await fetch(url)).text();
  const first = performance.now() - t0;
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    await (await fetch(url)).text();
    times.push(performance.now() - s);
  }
  times.sort((a, b) => a - b);
  return { first, p50: times[Math.floor(n / 2)], ok: expect === null || expect.test(firstBody) };
}

/** Downloads an export while sampling the server's RSS; its time, size and the peak. */
async function download(url: string, pid: number) {
  let peak = serverRssMb(pid);
  let anon = serverAnonMb(pid);
  let alone = serverAnonMbWithoutCheck(pid);
  const sampling = setInterval(() => {
    peak = Math.max(peak, serverRssMb(pid));
    anon = Math.max(anon, serverAnonMb(pid));
    alone = Math.max(alone, serverAnonMbWithoutCheck(pid));
  }, 50);
  const t0 = performance.now();
  const res = await fetch(url);
  let bytes = 0;
  const reader = res.body!.getReader();
  for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.length;
  clearInterval(sampling);
  return { ms: performance.now() - t0, bytes, peakMb: peak, anonMb: anon, aloneMb: alone, status: res.status };
}

export async function benchScale(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      sizes: { type: "string", default: "10000,100000,1000000" },
      "run-traces": { type: "string", default: "5000" },
      steps: { type: "string", default: "30" },
      "ingest-max": { type: "string", default: "100000" },
      keep: { type: "boolean", default: false },
      reuse: { type: "string" },
    },
  });
  const sizes = values.sizes.split(",").map(Number);
  const perRun = Number(values["run-traces"]);
  const steps = Number(values.steps);
  const ingestMax = Number(values["ingest-max"]);
  // --reuse DIR: the stores a run with --keep left there (store-N.db) are timed again, not built again.
  const dir = values.reuse ?? mkdtempSync(path.join(os.tmpdir(), "metron-bench-scale-"));
  const rows: Record<string, string | number>[] = [];
  let lastIngested: { file: string; traces: number; jsonlBytes: number } | null = null;
  try {
    for (const [i, n] of sizes.entries()) {
      const file = path.join(dir, `store-${n}.db`);
      let jsonlBytes: number | null;
      let ingestS: number | null = null;
      let indexS: number | null = null;
      if (values.reuse) {
        if (!existsSync(file)) throw new Error(`--reuse: no ${file}`);
        jsonlBytes = null; // not measured: the store was built by an earlier run
      } else if (n <= ingestMax || !lastIngested) {
        const jsonl = path.join(dir, `traces-${n}.jsonl`);
        jsonlBytes = await writeJsonl(jsonl, n, perRun, steps);
        process.env.DATABASE_PATH = file;
        const t0 = performance.now();
        const store = await openStore(); // a new, migrated store in that file
        await ingestFile(store, jsonl);
        ingestS = (performance.now() - t0) / 1000;
        const t1 = performance.now();
        while ((await syncSearchIndex(store, { budgetMs: 60_000, readAhead: true })).pending > 0);
        indexS = (performance.now() - t1) / 1000;
        await store.close();
        rmSync(jsonl);
        lastIngested = { file, traces: n, jsonlBytes };
      } else {
        // The last server on it may have left pages in the WAL: checkpointed first, the file alone is the whole store
        // (copied without its WAL, a store half-checkpointed read "database disk image is malformed").
        const source = openConnection(lastIngested.file);
        source.pragma("wal_checkpoint(TRUNCATE)");
        source.close();
        copyFileSync(lastIngested.file, file);
        const store = asSql(openConnection(file));
        const t0 = performance.now();
        await synthesize(store, Math.round(n / lastIngested.traces));
        ingestS = (performance.now() - t0) / 1000; // synthesis, not ingest
        await store.close();
        jsonlBytes = (lastIngested.jsonlBytes * n) / lastIngested.traces; // what its JSONL would weigh
      }
      // As `metron ingest` does after its ingest: the runs' views computed ahead (lib/views/ahead.ts), stamped
      // as the built server stamps them (the first part of its build's id), so its first views read them.
      process.env.METRON_CODE_STAMP = readFileSync(path.join(ROOT, ".next", "BUILD_ID"), "utf8")
        .trim()
        .split("-")[0];
      const ahead = asSql(openConnection(file));
      const t2 = performance.now();
      const viewed = await precomputeRunViews(ahead, await runsWithoutViews(ahead));
      // …then the Experiments page's default views over every run, as the CLI computes them after its run views.
      const t3 = performance.now();
      // Timed with the longest the event loop waited meanwhile: the server computes these views on its own thread
      // (its pass in the background, or a view's first request), and a request that arrives waits that long.
      const stall = watchEventLoop();
      const experimentViews = await precomputeExperimentViews(ahead);
      const experimentsAheadS = (performance.now() - t3) / 1000;
      const experimentsStallMs = await stall.stop();
      const aheadS = (performance.now() - t2) / 1000;
      await ahead.close();
      const conn = openConnection(file);
      conn.pragma("wal_checkpoint(TRUNCATE)");
      const ids = conn.prepare("SELECT id FROM runs ORDER BY id").all() as { id: string }[];
      const q = (
        conn.prepare("SELECT question_id AS q FROM traces WHERE run_id = ? LIMIT 1").get(ids[0].id) as {
          q: string;
        }
      ).q;
      const traces = (conn.prepare("SELECT count(*) AS n FROM traces").get() as { n: number }).n;
      conn.close();
      const storeBytes = sizeOf(file);
      const three = ids.slice(0, 3).map((r) => r.id);
      // These runs have no dataset: the Experiments page is timed with its "runs without a dataset" box ticked
      // (`all=true`), every run pooled into its model × system cell, checked to show the matrix (the smallest store's two runs are of two systems).
      const pages: [string, string, RegExp][] = [
        ["home", "/", /scale run/],
        ["experiments", "/experiments?all=true", /^(?=[\s\S]*data-testid="matrix-export-)(?=[\s\S]*No Directives)/],
        ["run", `/runs/${ids[0].id}`, /data-testid="traces-table"/],
        ["question", `/runs/${ids[0].id}/questions/${q}`, /data-testid="label-panel"/],
        ["compare", `/compare?runs=${three.join(",")}`, /McNemar/],
        ["search", `/search?q=${encodeURIComponent("describe_table table_b1")}`, /data-testid="search-hits"/],
      ];
      const row: Record<string, string | number> = {
        traces,
        runs: ids.length,
        "store/JSONL": jsonlBytes === null ? "reused" : +(storeBytes / jsonlBytes).toFixed(2),
        "ingest s": ingestS === null ? "-" : +ingestS.toFixed(1),
        "index s": indexS === null ? (values.reuse ? "reused" : "not built") : +indexS.toFixed(1),
        "views ahead s": viewed ? +aheadS.toFixed(1) : "none missing",
        "of which Experiments views s": experimentViews ? +experimentsAheadS.toFixed(1) : "none missing",
        "Experiments views: longest event-loop wait ms": experimentViews ? Math.round(experimentsStallMs) : "-",
      };
      // Each page's first request is a true first: a server started for it alone, without its warm-up (the request
      // right after the start); then again on a server started with its warm-up, once that has finished ("warm
      // first": the first click of a researcher who opens the page a few seconds after the start). The warm-up
      // requests the newest run's pages, not necessarily the ones timed here.
      for (const [name, url, expect] of pages) {
        for (const warm of [false, true]) {
          const server = await startServer(
            file,
            3470 + i,
            undefined,
            warm ? { waitFor: /metron: warmed/ } : { env: { METRON_WARM_UP: "0" } },
          );
          try {
            const t = await time(server.url + url, expect, warm ? 0 : 7);
            if (warm) row[`${name} warm first`] = Math.round(t.first);
            else {
              row[`${name} first`] = Math.round(t.first);
              row[`${name} p50`] = t.ok
                ? Math.round(t.p50)
                : `${Math.round(t.p50)} (the page lacks what it is timed for)`;
            }
          } finally {
            server.stop();
            await new Promise((r) => setTimeout(r, 500));
          }
        }
      }
      const server = await startServer(file, 3470 + i);
      try {
        const pid = server.child.pid!;
        const csv = await download(`${server.url}/api/export/compare.csv?runs=${three.join(",")}`, pid);
        const tcsv = await download(`${server.url}/api/runs/${ids[0].id}/traces.csv`, pid);
        row["compare.csv ms"] = Math.round(csv.ms);
        row["traces.csv ms"] = Math.round(tcsv.ms);
        row["export peak RssAnon MB"] = Math.round(Math.max(csv.anonMb, tcsv.anonMb));
        // The store's quick check runs in a process of its own for minutes after a start on a large store.
        row["export peak RssAnon MB without the quick check"] = Math.round(Math.max(csv.aloneMb, tcsv.aloneMb));
        row["export peak VmRSS MB"] = Math.round(Math.max(csv.peakMb, tcsv.peakMb));
        rows.push(row);
        console.log(JSON.stringify(row));
      } finally {
        server.stop();
        await new Promise((r) => setTimeout(r, 500));
      }
      if (!values.keep && !values.reuse && i > 0 && sizes[i - 1] !== lastIngested?.traces)
        rmSync(path.join(dir, `store-${sizes[i - 1]}.db`), { force: true });
    }
    if (rows.length > 1) {
      const a = rows[0];
      const b = rows.at(-1)!;
      console.log(`\ngrowth from ${a.traces} to ${b.traces} traces (p50 and first request, larger / smaller):`);
      for (const k of Object.keys(a).filter((k) => / (p50|first)$/.test(k) && typeof a[k] === "number"))
        console.log(`  ${k.padEnd(18)} ${(Number(b[k]) / Math.max(1, Number(a[k]))).toFixed(2)}`);
    }
    return 0;
  } finally {
    if (!values.keep && !values.reuse) rmSync(dir, { recursive: true, force: true });
    else console.log(`stores kept in ${dir}`);
  }
}

/**
 * `npm run bench -- ingest [--mb 1000] [--steps 40] [--rounds 3] [--keep] [--workers N] [--other-workers M]`:
 * generates a synthetic JSONL file, ingests it into a fresh store (with N worker threads: METRON_INGEST_WORKERS, by
 * default the machine's; and with M too, in the same rounds, when asked) and builds its search index, and compares
 * with references measured in the same rounds: a
 * floor (JSON.parse of the same lines plus bare prepared inserts of the same rows into Metron's tables, one
 * transaction, trace ids SHA-256 digests as Metron's are; printed also with ids numbered in order, the floor before
 * 2026-12-03) and the bare Python script a researcher would write (bare-ingest.py; also with its store in WAL mode, as
 * Metron's is, for reference). Each phase runs in its own
 * process for a clean peak RSS; rounds interleave the phases and ratios are medians of the rounds' ratios. Metron and
 * the floor are timed until their commit, which does not checkpoint (since 2026-12-05 Metron's worker folds the log
 * into the store file after the commit); each checkpoint's time is printed apart. The script's times include its
 * commit (its default journal writes the store file at once; in WAL mode its commit checkpoints).
 */
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { benchPostgres } from "./postgres";
import { syntheticTraceLine } from "./synthetic";
import { isPostgresUrl } from "@/lib/db/sql";
import { defaultIngestWorkers } from "@/lib/ingest/in-worker";

interface Phase {
  seconds: number;
  /** CPU seconds (user and system, all the process's threads) from the phase's start until its commit. */
  cpuSeconds: number;
  maxRssMb: number;
  traces: number;
  /** The ingest phase only: the seconds to build the search index afterwards (until the traces are searchable). */
  indexSeconds?: number;
  /**
   * The checkpoint after the commit, not in `seconds` (both phases are timed until their commit, which does not
   * checkpoint): the ingest's, in its worker beside the index build; the floor's, at its connection's close.
   */
  checkpointSeconds?: number;
  /** The ingest phase only: its peak RSS when the upload had committed, before the index build. */
  ingestRssMb?: number;
}

/** `ingest-other`: the same ingest with `--other-workers` worker threads (a pool against one, say). */
type PhaseName = "floor" | "floor-seq" | "python" | "python-wal" | "ingest" | "ingest-other";

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function writeFile(file: string, targetBytes: number, steps: number): Promise<number> {
  const out = createWriteStream(file);
  let bytes = 0;
  let i = 0;
  while (bytes < targetBytes) {
    const line = syntheticTraceLine(i++, steps) + "\n";
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((r) => out.end(r));
  return i;
}

const root = path.resolve(import.meta.dirname, "..", "..");

/**
 * Both phases run as plain compiled JavaScript (ingest-phase.ts bundled by esbuild, packages external), as the
 * `metron` CLI does, so neither carries the TypeScript loader's time and memory.
 */
async function compilePhases(): Promise<string> {
  const { build } = await import("esbuild");
  // Inside the project (dist/ is git-ignored), so that its packages resolve from node_modules.
  const outfile = path.join(root, "dist", "bench", "ingest-phase.mjs");
  await build({
    entryPoints: [path.join(import.meta.dirname, "ingest-phase.ts")],
    outfile,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    tsconfig: path.join(root, "tsconfig.json"),
    logLevel: "warning",
    banner: { js: "import { createRequire as __r } from 'node:module'; const require = __r(import.meta.url);" },
    footer: { js: "process.exitCode = await ingestPhase(process.argv.slice(2));" },
  });
  return outfile;
}

function runPhase(
  script: string,
  phase: PhaseName,
  file: string,
  store: string,
  env: Record<string, string> = {},
): Phase {
  const child =
    phase === "python" || phase === "python-wal"
      ? spawnSync(
          "python3",
          [path.join(import.meta.dirname, "bare-ingest.py"), file, store, phase === "python-wal" ? "wal" : "default"],
          {
            encoding: "utf8",
            maxBuffer: 1 << 20,
          },
        )
      : spawnSync(process.execPath, [script, phase === "ingest-other" ? "ingest" : phase, file, store], {
          encoding: "utf8",
          env: { ...process.env, DATABASE_PATH: store, ...env },
          maxBuffer: 1 << 20,
        });
  if (child.status !== 0) throw new Error(`${phase} phase failed:\n${child.stderr}`);
  if (!isPostgresUrl(store)) for (const f of [store, `${store}-wal`, `${store}-shm`]) rmSync(f, { force: true });
  return JSON.parse(child.stdout.trim().split("\n").pop()!);
}

/** Whether `python3` runs here. */
function hasPython(): boolean {
  return spawnSync("python3", ["-c", "import sqlite3, json"], { encoding: "utf8" }).status === 0;
}

export async function benchIngest(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      mb: { type: "string", default: "1000" },
      steps: { type: "string", default: "40" },
      rounds: { type: "string", default: "3" },
      keep: { type: "boolean", default: false },
      workers: { type: "string" },
      "other-workers": { type: "string" },
    },
  });
  // The ingest's worker threads (METRON_INGEST_WORKERS; by default one fewer than the cores, 1 to 4), and another
  // count measured in the same rounds when asked.
  const workers = values.workers ?? process.env.METRON_INGEST_WORKERS ?? String(defaultIngestWorkers());
  const ingestEnv = (phase: PhaseName): Record<string, string> =>
    phase === "ingest"
      ? { METRON_INGEST_WORKERS: workers }
      : phase === "ingest-other"
        ? { METRON_INGEST_WORKERS: values["other-workers"]! }
        : {};
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-bench-"));
  const file = path.join(dir, "traces.jsonl");
  try {
    console.log(`generating ~${values.mb} MB of synthetic traces (${values.steps} steps each) in ${dir} …`);
    const traces = await writeFile(file, Number(values.mb) * 1e6, Number(values.steps));
    const mb = statSync(file).size / 1e6;
    console.log(`${traces} traces, ${mb.toFixed(0)} MB`);
    const { buildCli } = await import("../build-cli.mjs");
    await buildCli({ quiet: true }); // the ingest worker (dist/cli/ingest-worker.mjs)
    const script = await compilePhases();
    const rounds = Math.max(1, Number(values.rounds));
    const phases: PhaseName[] = [
      "floor",
      "floor-seq",
      ...(hasPython() ? (["python", "python-wal"] as const) : []),
      "ingest",
      ...(values["other-workers"] ? (["ingest-other"] as const) : []),
    ];
    if (!phases.includes("python")) console.log("python3 not found: the bare script is left out");
    // Interleaved rounds, the order rotated each round, so that a neighbour busy for a while slows every phase
    // alike; each ratio is taken within its round, and the median of the rounds' ratios is reported.
    const results: Record<PhaseName, Phase[]> = {
      floor: [],
      "floor-seq": [],
      python: [],
      "python-wal": [],
      ingest: [],
      "ingest-other": [],
    };
    for (let r = 0; r < rounds; r++) {
      const order = phases.map((_, i) => phases[(i + r) % phases.length]);
      for (const phase of order) {
        const result = runPhase(script, phase, file, path.join(dir, `${phase}.db`), ingestEnv(phase));
        results[phase].push(result);
        if (result.traces !== traces) console.log(`WARNING: ${phase} stored ${result.traces} of ${traces} traces`);
      }
      const line = phases.map((p) => `${p} ${results[p][r].seconds.toFixed(1)} s`).join(", ");
      const index = results.ingest[r].indexSeconds;
      console.log(`round ${r + 1} (${order.join(" → ")}): ${line}; search index ${index?.toFixed(1)} s`);
    }
    const describe = (label: string, runs: Phase[]) => {
      const s = median(runs.map((x) => x.seconds));
      const cpu = median(runs.map((x) => x.cpuSeconds));
      const rss = Math.max(...runs.map((x) => x.maxRssMb));
      console.log(
        `${label} ${s.toFixed(1)} s, ${(mb / s).toFixed(1)} MB/s, CPU ${cpu.toFixed(1)} s (${(cpu / s).toFixed(2)} cores), peak RSS ${rss.toFixed(0)} MB`,
      );
    };
    console.log(`\nmedians of ${rounds} round(s):`);
    describe("floor  (JSON.parse + bare prepared inserts, Metron's tables):", results.floor);
    describe("floor, its trace ids numbered in order (appended):     ", results["floor-seq"]);
    if (results.python.length) {
      describe("python (json + sqlite3 executemany, two bare tables):", results.python);
      describe("python, the store in WAL mode as Metron's is:        ", results["python-wal"]);
    }
    describe(`ingest (metron ingest pipeline, metrics on, ${workers} worker thread(s)):`, results.ingest);
    if (results["ingest-other"].length)
      describe(`ingest with ${values["other-workers"]} worker thread(s):                  `, results["ingest-other"]);
    const ratio = (p: PhaseName) => median(results.ingest.map((x, r) => x.seconds / results[p][r].seconds));
    const maxRss = Math.max(...results.ingest.map((x) => x.maxRssMb));
    const toFloor = ratio("floor");
    console.log(`ratio ingest/floor (median of the rounds' ratios): ${toFloor.toFixed(2)}  (target ≤ 1.3)`);
    console.log(
      `ratio ingest/floor with ids in order (median): ${ratio("floor-seq").toFixed(2)}  (Metron's ids are hashes: for reference)`,
    );
    if (results.python.length) {
      const toPython = ratio("python");
      console.log(
        `ratio ingest/python (median of the rounds' ratios): ${toPython.toFixed(2)}  (target ≤ 1: Metron at least as fast)`,
      );
      const wal = median(results["python-wal"].map((x, r) => x.seconds / results.python[r].seconds));
      console.log(
        `ratio ingest/python in WAL mode (median): ${ratio("python-wal").toFixed(2)}  (for reference: the script with Metron's journal; python WAL/default ${wal.toFixed(2)})`,
      );
    }
    // Both cores busy: on two cores an ingest ends no sooner than half its CPU, whatever its threads share out.
    const cpuRatio = (p: PhaseName) =>
      median(results.ingest.map((x, r) => x.cpuSeconds / results[p][r].cpuSeconds)).toFixed(2);
    console.log(
      `CPU ratio ingest/floor (median): ${cpuRatio("floor")}${results.python.length ? `, ingest/python: ${cpuRatio("python")}` : ""}  (for reference: what the ingest spends, which no share-out between threads removes)`,
    );
    const untilCommit = Math.max(...results.ingest.map((x) => x.ingestRssMb ?? NaN));
    console.log(
      `peak RSS of the ingest: ${maxRss.toFixed(0)} MB over the phase, the index build after it included (target ≤ 300 MB); ${untilCommit.toFixed(0)} MB until its commit`,
    );
    if (results["ingest-other"].length) {
      const other = median(results["ingest-other"].map((x, r) => x.seconds / results.ingest[r].seconds));
      const otherRss = Math.max(...results["ingest-other"].map((x) => x.maxRssMb));
      const toPy = results.python.length
        ? `, ingest with ${values["other-workers"]}/python ${median(results["ingest-other"].map((x, r) => x.seconds / results.python[r].seconds)).toFixed(2)}`
        : "";
      console.log(
        `ratio ingest with ${values["other-workers"]} worker thread(s) / with ${workers} (median): ${other.toFixed(2)}${toPy}; its peak RSS ${otherRss.toFixed(0)} MB`,
      );
    }
    const checkpoint = (runs: Phase[]) => median(runs.map((x) => x.checkpointSeconds ?? NaN)).toFixed(2);
    console.log(
      `checkpoint after the commit (outside the times above): ingest ${checkpoint(results.ingest)} s in its worker, beside the index build; floor ${checkpoint(results.floor)} s at its close`,
    );
    const searchable = median(results.ingest.map((x) => x.seconds + (x.indexSeconds ?? 0)));
    const indexRatio = median(results.ingest.map((x) => (x.indexSeconds ?? 0) / x.seconds));
    console.log(
      `until searchable (ingest + search index): ${searchable.toFixed(1)} s, ${(mb / searchable).toFixed(1)} MB/s; index/ingest time ${indexRatio.toFixed(2)} (target ≤ 1.5)`,
    );
    // The same file into PostgreSQL on this machine (a new database), when one can be had.
    const pg = await benchPostgres("ingest");
    if (!pg) console.log("\nPostgreSQL: not available here (set METRON_BENCH_DATABASE_URL): SQLite only");
    else
      try {
        const onPg = runPhase(script, "ingest", file, pg.url, ingestEnv("ingest"));
        const ingest = { seconds: median(results.ingest.map((x) => x.seconds)) };
        console.log(
          `\ningest into PostgreSQL:                      ${onPg.seconds.toFixed(1)} s, ${(mb / onPg.seconds).toFixed(1)} MB/s, peak RSS ${onPg.maxRssMb.toFixed(0)} MB`,
        );
        console.log(`ratio PostgreSQL/SQLite (time): ${(onPg.seconds / ingest.seconds).toFixed(2)}`);
        if (onPg.traces !== traces) console.log(`WARNING: PostgreSQL ingested ${onPg.traces} of ${traces} traces`);
      } finally {
        await pg.drop();
      }
    return 0;
  } finally {
    if (!values.keep) rmSync(dir, { recursive: true, force: true });
  }
}

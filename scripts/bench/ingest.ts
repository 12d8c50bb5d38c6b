/**
 * `npm run bench -- ingest [--mb 1000] [--steps 40] [--keep]`: generates a synthetic JSONL file, ingests it into
 * a fresh store, and compares with a floor measured in the same run: JSON.parse of the same lines plus a bare
 * prepared insert of the same rows in one transaction. Each phase runs in its own process for a clean peak RSS.
 */
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { benchPostgres } from "./postgres";
import { syntheticTraceLine } from "./synthetic";

interface Phase {
  seconds: number;
  maxRssMb: number;
  traces: number;
}

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

function runPhase(script: string, phase: "floor" | "ingest", file: string, store: string): Phase {
  const child = spawnSync(process.execPath, [script, phase, file, store], {
    encoding: "utf8",
    env: { ...process.env, DATABASE_PATH: store },
    maxBuffer: 1 << 20,
  });
  if (child.status !== 0) throw new Error(`${phase} phase failed:\n${child.stderr}`);
  return JSON.parse(child.stdout.trim().split("\n").pop()!);
}

export async function benchIngest(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      mb: { type: "string", default: "1000" },
      steps: { type: "string", default: "40" },
      keep: { type: "boolean", default: false },
    },
  });
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
    const floor = runPhase(script, "floor", file, path.join(dir, "floor.db"));
    const ingest = runPhase(script, "ingest", file, path.join(dir, "ingest.db"));
    const rate = mb / ingest.seconds;
    console.log(
      `\nfloor  (JSON.parse + bare prepared inserts): ${floor.seconds.toFixed(1)} s, ${(mb / floor.seconds).toFixed(1)} MB/s, peak RSS ${floor.maxRssMb.toFixed(0)} MB`,
    );
    console.log(
      `ingest (metron ingest pipeline):            ${ingest.seconds.toFixed(1)} s, ${rate.toFixed(1)} MB/s, peak RSS ${ingest.maxRssMb.toFixed(0)} MB`,
    );
    console.log(
      `ratio ingest/floor: ${(ingest.seconds / floor.seconds).toFixed(2)}  (targets: ≥ 40 MB/s, ratio ≤ 1.5, RSS ≤ 300 MB)`,
    );
    if (ingest.traces !== traces) console.log(`WARNING: ingested ${ingest.traces} of ${traces} traces`);
    // The same file into PostgreSQL on this machine (a new database), when one can be had.
    const pg = await benchPostgres("ingest");
    if (!pg) console.log("\nPostgreSQL: not available here (set METRON_BENCH_DATABASE_URL): SQLite only");
    else
      try {
        const onPg = runPhase(script, "ingest", file, pg.url);
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

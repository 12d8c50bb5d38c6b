/**
 * `npm run bench -- cli`: how fast the `metron` CLI starts and how much memory it takes, p50 of N runs each, against
 * `node -e 0` measured in the same run (the floor no Node program goes under). Wall time and peak RSS come from
 * GNU time (`/usr/bin/time -f "%e %M"`). Targets (issue 21): `--help` ≤ 150 ms and ≤ 80 MB, `sql tables` ≤ 300 ms.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const root = path.resolve(import.meta.dirname, "..", "..");

function measure(args: string[], env: NodeJS.ProcessEnv): { ms: number; rssMb: number } {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %M", process.execPath, ...args], {
    cwd: root,
    env,
    encoding: "utf8",
  });
  const last = r.stderr.trim().split("\n").pop() ?? "";
  const [seconds, kb] = last.split(" ").map(Number);
  if (r.status !== 0 && r.status !== 1) throw new Error(`${args.join(" ")} failed: ${r.stderr.slice(0, 500)}`);
  return { ms: seconds * 1000, rssMb: kb / 1024 };
}

const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

export async function benchCli(argv: string[]): Promise<number> {
  const { values } = parseArgs({ args: argv, options: { runs: { type: "string", default: "10" } } });
  const runs = Number(values.runs);
  if (!existsSync("/usr/bin/time")) {
    console.error("bench cli needs GNU time (/usr/bin/time: apt-get install time)");
    return 1;
  }
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-bench-cli-"));
  const env = { ...process.env, DATABASE_PATH: path.join(dir, "store.db") };
  const trace = path.join(dir, "one.jsonl");
  writeFileSync(
    trace,
    JSON.stringify({
      run: { name: "bench cli", system: "bench", model: "bench" },
      question: { id: "1" },
      steps: [{ type: "tool_call", tool: "list_tables", result: "t" }],
    }) + "\n",
  );
  try {
    const metron = path.join(root, "scripts", "metron.mjs");
    spawnSync(process.execPath, [metron, "migrate"], { cwd: root, env }); // built and migrated before timing
    const cases: [string, string[]][] = [
      ["node -e 0 (floor)", ["-e", "0"]],
      ["metron --help", [metron, "--help"]],
      ["metron sql tables --sql", [metron, "sql", "tables", "--sql", "SELECT a FROM t JOIN u ON t.id = u.id"]],
      ["metron ingest (1 trace)", [metron, "ingest", trace]],
    ];
    const rows: { name: string; ms: number; rss: number }[] = [];
    for (const [name, args] of cases) {
      const samples = Array.from({ length: runs }, () => measure(args, env));
      rows.push({ name, ms: p50(samples.map((s) => s.ms)), rss: p50(samples.map((s) => s.rssMb)) });
    }
    const floor = rows[0].ms;
    console.log(
      `CLI start, p50 of ${runs} runs (load average ${os.loadavg()[0].toFixed(2)}, ${os.cpus().length} cores)`,
    );
    for (const r of rows)
      console.log(
        `${r.name.padEnd(28)} ${r.ms.toFixed(0).padStart(5)} ms  ${r.rss.toFixed(0).padStart(4)} MB RSS  ${(r.ms / floor).toFixed(2)}× the floor`,
      );
    const help = rows[1];
    const sql = rows[2];
    const ok = help.ms <= 150 && help.rss <= 80 && sql.ms <= 300;
    console.log(
      `targets: --help ≤ 150 ms and ≤ 80 MB (${help.ms.toFixed(0)} ms, ${help.rss.toFixed(0)} MB), sql tables ≤ 300 ms (${sql.ms.toFixed(0)} ms): ${ok ? "met" : "NOT met"}`,
    );
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

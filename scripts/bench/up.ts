/**
 * `npm run bench -- up`: a warm `npm run up` (nothing changed since the last one) — the time until it serves, and
 * which phases it skipped (install, build). Target (issue 21): serving within 5 s. Run `npm run up` once first.
 */
import { spawn } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { ROOT } from "./server";

export async function benchUp(): Promise<number> {
  const port = 3217;
  const started = Date.now();
  const child = spawn(process.execPath, [path.join(ROOT, "scripts", "up.mjs")], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  child.stdout.on("data", (d: Buffer) => (log += d.toString()));
  child.stderr.on("data", (d: Buffer) => (log += d.toString()));
  let servedMs: number | null = null;
  for (let i = 0; i < 600 && servedMs === null; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/api/schema/trace`)).ok) servedMs = Date.now() - started;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  child.kill("SIGINT");
  const code = await new Promise<number | null>((r) => child.on("exit", (c) => r(c)));
  const installed = /Installing dependencies/.test(log);
  const built = /Building the app/.test(log);
  console.log(`warm npm run up (load average ${os.loadavg()[0].toFixed(2)}):`);
  console.log(`  serving after ${servedMs === null ? "—" : `${(servedMs / 1000).toFixed(1)} s`}`);
  console.log(
    `  install: ${installed ? "ran" : "skipped"} · build: ${built ? "ran" : "skipped"} · Ctrl-C exit status ${code}`,
  );
  console.log(
    `target: serving within 5 s with install and build skipped: ${servedMs !== null && servedMs <= 5000 && !installed && !built ? "met" : "NOT met"}`,
  );
  return 0;
}

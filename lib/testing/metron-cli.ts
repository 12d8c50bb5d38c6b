/** The `metron` command in a process of its own (scripts/metron.mjs), for tests of what the CLI writes. */
import { spawn } from "node:child_process";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");

/** Runs `metron ARGS` with `env` added to this process's environment; its exit code and what it printed. */
export function metron(env: Record<string, string>, args: string[]) {
  const child = spawn(process.execPath, [path.join(ROOT, "scripts", "metron.mjs"), ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (err += d));
  return new Promise<{ code: number | null; out: string; err: string }>((resolve) =>
    child.on("exit", (code) => resolve({ code, out, err })),
  );
}

/** Starts the built app (`next start`) on a store for page benchmarks; the caller stops it. */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, openSync } from "node:fs";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");

export async function startServer(
  store: string,
  port: number,
  /** A PostgreSQL store instead of the SQLite file (`store` still names the folder of its side files). */
  databaseUrl?: string,
  opts: {
    /** More environment for the server (`METRON_WARM_UP: "0"`: a server that does not warm itself up). */
    env?: Record<string, string>;
    /** Returns only once the server has printed a line matching this (its warm-up's `metron: warmed …`). */
    waitFor?: RegExp;
  } = {},
): Promise<{ url: string; stop: () => void; child: ChildProcess }> {
  if (!existsSync(path.join(ROOT, ".next", "BUILD_ID")))
    throw new Error("no production build: run `npx next build` (or npm test) first");
  const child = spawn(
    path.join(ROOT, "node_modules", ".bin", "next"),
    ["start", "-p", String(port), "-H", "127.0.0.1"],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_PATH: store,
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
        ...opts.env,
      },
      // METRON_BENCH_SERVER_LOG=FILE keeps what the server prints (appended), to see why a bench's server failed.
      stdio: [
        "ignore",
        opts.waitFor
          ? "pipe"
          : process.env.METRON_BENCH_SERVER_LOG
            ? openSync(process.env.METRON_BENCH_SERVER_LOG, "a")
            : "ignore",
        process.env.METRON_BENCH_SERVER_LOG ? openSync(process.env.METRON_BENCH_SERVER_LOG, "a") : "ignore",
      ],
    },
  );
  let printed = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => (printed = (printed + d).slice(-10_000)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`${url}/api/schema/trace`)).ok) {
        for (let j = 0; opts.waitFor && !opts.waitFor.test(printed) && j < 1200; j++)
          await new Promise((r) => setTimeout(r, 100));
        if (opts.waitFor && !opts.waitFor.test(printed)) {
          child.kill("SIGTERM");
          throw new Error(`the server did not print ${opts.waitFor} within 120 s of answering`);
        }
        return { url, child, stop: () => child.kill("SIGTERM") };
      }
    } catch (e) {
      if ((e as Error).message.startsWith("the server did not print")) throw e;
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill("SIGTERM");
  throw new Error("the server did not start within 20 s");
}

/**
 * Median and max server time of `n` sequential requests after a first one (timed apart: a cold view, before any
 * memoised figure), the size of the HTML, and the first answer's HTML (to check the page shows what it is timed for).
 */
export async function timePage(
  url: string,
  n = 7,
): Promise<{ first: number; p50: number; max: number; bytes: number; status: number; body: string }> {
  const t0 = performance.now();
  const body = await fetch(url).then((r) => r.text());
  const first = performance.now() - t0;
  const times: number[] = [];
  let bytes = 0;
  let status = 0;
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const res = await fetch(url);
    const body = await res.text();
    times.push(performance.now() - start);
    bytes = Buffer.byteLength(body);
    status = res.status;
  }
  times.sort((a, b) => a - b);
  return { first, p50: times[Math.floor(times.length / 2)], max: times[times.length - 1], bytes, status, body };
}

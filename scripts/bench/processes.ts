/** The server's processes as /proc sees them: memory and CPU of a process tree, and probes while something runs. */
import { readFileSync, readdirSync } from "node:fs";
import http from "node:http";

/** Processes under `root` (itself included), from /proc. */
export function tree(root: number): { pid: number; cmd: string; rssKb: number; anonKb: number; cpuTicks: number }[] {
  const all = readdirSync("/proc")
    .filter((d) => /^\d+$/.test(d))
    .map((d) => {
      try {
        const stat = readFileSync(`/proc/${d}/stat`, "utf8");
        const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        const status = readFileSync(`/proc/${d}/status`, "utf8");
        const rss = /VmRSS:\s+(\d+)/.exec(status);
        const anon = /RssAnon:\s+(\d+)/.exec(status);
        return {
          pid: Number(d),
          ppid: Number(fields[1]),
          cmd: readFileSync(`/proc/${d}/cmdline`, "utf8").replace(/\0/g, " "),
          rssKb: rss ? Number(rss[1]) : 0,
          anonKb: anon ? Number(anon[1]) : 0,
          cpuTicks: Number(fields[11]) + Number(fields[12]),
        };
      } catch {
        return null;
      }
    })
    .filter((p) => p !== null);
  const out = all.filter((p) => p.pid === root);
  for (let i = 0; i < out.length; i++) out.push(...all.filter((p) => p.ppid === out[i].pid));
  return out;
}

/** A SQL sandbox worker process (lib/sandbox/worker.mjs), told apart from the server by its command line. */
const isSandbox = (cmd: string) => cmd.includes("sandbox/worker.mjs");

export const serverRssMb = (root: number) =>
  tree(root)
    .filter((p) => !isSandbox(p.cmd))
    .reduce((s, p) => s + p.rssKb, 0) / 1024;
/** The server's anonymous memory (heap, stacks; not the store's pages it maps or caches from the file). */
export const serverAnonMb = (root: number) =>
  tree(root)
    .filter((p) => !isSandbox(p.cmd))
    .reduce((s, p) => s + p.anonKb, 0) / 1024;
/** The same without the store's quick check (lib/db/quick-check-worker.mjs, a process the server starts once). */
export const serverAnonMbWithoutCheck = (root: number) =>
  tree(root)
    .filter((p) => !isSandbox(p.cmd) && !p.cmd.includes("quick-check-worker.mjs"))
    .reduce((s, p) => s + p.anonKb, 0) / 1024;
export const workerTicks = (root: number) =>
  tree(root)
    .filter((p) => isSandbox(p.cmd))
    .reduce((s, p) => s + p.cpuTicks, 0);

/**
 * One probe request on a connection of its own: a kept-alive socket the server closes as the next request starts
 * would fail the probe for a reason that is not the server's.
 */
function probe(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve());
      })
      .on("error", reject);
  });
}

/** Runs `attack` while probing the server every 100 ms; returns the slowest probe and the peak server RSS. */
export async function underAttack<T>(
  url: string,
  pid: number,
  attack: () => Promise<T>,
): Promise<{ value: T; maxProbeMs: number; peakRssMb: number }> {
  let stop = false;
  let maxProbeMs = 0;
  let peakRssMb = serverRssMb(pid);
  const probing = (async () => {
    for (let i = 0; i < 3000 && !stop; i++) {
      const t = performance.now();
      await probe(`${url}/api/schema/trace`);
      maxProbeMs = Math.max(maxProbeMs, performance.now() - t);
      peakRssMb = Math.max(peakRssMb, serverRssMb(pid));
      await new Promise((r) => setTimeout(r, 100));
    }
  })();
  try {
    return { value: await attack(), maxProbeMs, peakRssMb };
  } finally {
    stop = true;
    await probing;
  }
}

/**
 * `npm run bench -- question-page`: ingests synthetic traces of 1k, 10k and 100k steps into a fresh store, serves the
 * production build on it, and prints the server time of each question page (p50 of 7, after a warm-up) and the size
 * of the HTML sent. Target: ≤ 200 ms at 10k steps; the page ships one window of timeline rows, not the trace.
 */
import { asSql } from "@/lib/db/sql";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDb } from "@/lib/db/client";
import { ingestStream } from "@/lib/ingest/ingest";
import { questionPath } from "@/lib/url/question";
import { startServer, timePage } from "./server";
import { syntheticTraceLine } from "./synthetic";

export async function benchQuestionPage(): Promise<number> {
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-bench-page-"));
  const store = path.join(dir, "store.db");
  const sizes = [1_000, 10_000, 100_000];
  try {
    const db = openDb(store);
    const report = await ingestStream(
      asSql(db.$client),
      (async function* () {
        for (const [i, steps] of sizes.entries()) {
          // As event lines (a header, then one line per step), as a long run's log would be: a 100k-step trace
          // is over the default 64 MB line limit as one line.
          const { steps: all, ...header } = JSON.parse(
            syntheticTraceLine(i, steps, { name: "page bench", system: "No Directives", model: "bench-model" }),
          );
          yield Buffer.from(JSON.stringify({ kind: "trace", trace_id: `t${i}`, ...header }) + "\n");
          for (let seq = 0; seq < all.length; seq += 1000) {
            yield Buffer.from(
              all
                .slice(seq, seq + 1000)
                .map((s: object, j: number) => JSON.stringify({ kind: "step", trace_id: `t${i}`, seq: seq + j, ...s }))
                .join("\n") + "\n",
            );
          }
        }
      })(),
    );
    db.$client.close();
    if (report.inserted !== sizes.length)
      throw new Error(`ingested ${report.inserted} of ${sizes.length} traces: ${JSON.stringify(report.errors)}`);
    const runId = report.runs[0].id;
    const server = await startServer(store, 3217);
    try {
      console.log("steps     p50 ms   max ms   HTML");
      for (const [i, steps] of sizes.entries()) {
        const t = await timePage(server.url + questionPath(runId, String(i)));
        if (t.status !== 200) throw new Error(`page of ${steps} steps answered ${t.status}`);
        console.log(
          `${String(steps).padEnd(9)} ${t.p50.toFixed(0).padStart(6)}   ${t.max.toFixed(0).padStart(6)}   ${(t.bytes / 1024).toFixed(0)} kB`,
        );
      }
      const deep = await timePage(`${server.url}${questionPath(runId, "2", { step: 99_000 })}`);
      console.log(`100000 with ?step=99000: p50 ${deep.p50.toFixed(0)} ms, ${(deep.bytes / 1024).toFixed(0)} kB`);
      console.log("target: ≤ 200 ms at 10k steps");
    } finally {
      server.stop();
    }
    return 0;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

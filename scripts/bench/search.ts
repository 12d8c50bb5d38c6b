/**
 * `npm run bench -- search [--traces 100000] [--steps 40]`: ingests synthetic traces into a fresh store, builds the
 * full-text index (timed), then times two-term and structured queries (p50 / p95 of 20 runs each, the index
 * already caught up; each matches thousands of traces, and one more documents than a search reads, on purpose), and
 * prints the index's size against the store's. Target: p50 ≤ 100 ms for a two-term query.
 */
import { asSql } from "@/lib/db/sql";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openDb } from "@/lib/db/client";
import { ingestStream } from "@/lib/ingest/ingest";
import { searchTraces, syncSearchIndex } from "@/lib/search";
import { syntheticTraceLine } from "./synthetic";

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))];

export async function benchSearch(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { traces: { type: "string", default: "100000" }, steps: { type: "string", default: "40" } },
  });
  const traces = Number(values.traces);
  const steps = Number(values.steps);
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-bench-search-"));
  const file = path.join(dir, "store.db");
  const db = openDb(file);
  try {
    const t0 = performance.now();
    await ingestStream(
      asSql(db.$client),
      (async function* () {
        let batch: string[] = [];
        for (let i = 0; i < traces; i++) {
          batch.push(syntheticTraceLine(i, steps));
          if (batch.length === 500) {
            yield Buffer.from(batch.join("\n") + "\n");
            batch = [];
          }
        }
        if (batch.length) yield Buffer.from(batch.join("\n") + "\n");
      })(),
    );
    const ingestMs = performance.now() - t0;
    db.$client.pragma("wal_checkpoint(TRUNCATE)");
    const storeBytes = statSync(file).size;
    console.log(
      `${traces} traces × ${steps} steps ingested in ${(ingestMs / 1000).toFixed(1)} s; store ${(storeBytes / 1e6).toFixed(0)} MB`,
    );

    const t1 = performance.now();
    const { indexed } = await syncSearchIndex(asSql(db.$client));
    const indexMs = performance.now() - t1;
    db.$client.pragma("wal_checkpoint(TRUNCATE)");
    const withIndex = statSync(file).size;
    const pages = (name: string) =>
      (db.$client.prepare("SELECT sum(pgsize) AS b FROM dbstat WHERE name LIKE ?").get(name) as { b: number | null })
        .b ?? 0;
    const ftsBytes = pages("search_docs%");
    console.log(
      `index: ${indexed} traces in ${(indexMs / 1000).toFixed(1)} s (${((traces * (steps + 3)) / (indexMs / 1000)).toFixed(0)} documents/s); index ${(ftsBytes / 1e6).toFixed(0)} MB = ${((ftsBytes / storeBytes) * 100).toFixed(0)}% of the store before it (store now ${(withIndex / 1e6).toFixed(0)} MB)`,
    );

    const queries = [
      "describe_table table_c2", // two words (thousands of traces)
      "read_query", // one word in nearly every trace: past the document cap on purpose
      '"description of column"', // a phrase
      "table_c2_col3 INTEGER", // two rarer terms
      "tool:describe_table table:table_c2", // structured, no words
      "describe_table table_c2 outcome:wrong", // words and a trace term
    ];
    for (const q of queries) {
      const times: number[] = [];
      let total = 0;
      let capped = false;
      for (let i = 0; i < 20; i++) {
        const s = performance.now();
        ({ total, capped } = await searchTraces(asSql(db.$client), q, { limit: 25 }));
        times.push(performance.now() - s);
      }
      console.log(
        `query ${JSON.stringify(q)}: p50 ${pct(times, 0.5).toFixed(0)} ms, p95 ${pct(times, 0.95).toFixed(0)} ms (${total} traces${capped ? ", at the cap of METRON_SEARCH_MAX_DOCS documents: at least" : ""})`,
      );
    }
  } finally {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return 0;
}

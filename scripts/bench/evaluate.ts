/**
 * `npm run bench -- evaluate [--data ../shared/data]`: imports Spider-de (20 real databases, 1030 questions) into a
 * fresh store, ingests one trace per question whose final SQL is the gold SQL, and times the re-evaluation of all
 * 1030: cold (gold results not cached) and warm. Target: ≤ 10 s cold on the 2-core machine.
 */
import { asSql } from "@/lib/db/sql";
import { readFileSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { openDb } from "@/lib/db/client";
import { importDataset } from "@/lib/datasets/import-dataset";
import { evaluateRun } from "@/lib/eval/evaluate-run";
import { ingestStream } from "@/lib/ingest/ingest";

export async function benchEvaluate(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      data: { type: "string", default: path.resolve(import.meta.dirname, "..", "..", "..", "shared", "data") },
    },
  });
  const spider = path.join(values.data!, "spider-de");
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-bench-eval-"));
  const db = openDb(path.join(dir, "store.db"));
  try {
    await importDataset(
      asSql(db.$client),
      {
        name: "spider-de",
        format: "spider",
        questions: path.join(spider, "dev.json"),
        databases: path.join(spider, "database"),
      },
      dir,
    );
    const dev = JSON.parse(readFileSync(path.join(spider, "dev.json"), "utf8")) as { query: string }[];
    const lines = dev.map((q, i) =>
      JSON.stringify({
        run: { name: "gold-as-prediction", system: "bench", model: "none", benchmark: "spider-de" },
        question: { id: String(i) },
        final_sql: q.query,
        steps: [],
      }),
    );
    const report = await ingestStream(
      asSql(db.$client),
      (async function* () {
        yield Buffer.from(lines.join("\n"));
      })(),
    );
    const runId = report.runs[0].id;
    for (const label of ["cold (gold results computed)", "warm (gold results cached)"]) {
      const start = performance.now();
      const { counts } = await evaluateRun(asSql(db.$client), runId);
      const s = (performance.now() - start) / 1000;
      console.log(
        `${label}: ${dev.length} traces in ${s.toFixed(2)} s (${((1000 * s) / dev.length).toFixed(2)} ms/trace)  ${JSON.stringify(counts)}`,
      );
    }
    console.log("target: ≤ 10 s for all 1030 (cold)");
    return 0;
  } finally {
    db.$client.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

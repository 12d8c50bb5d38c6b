/**
 * Seeds the simulated demo: the demo database and its questions are written by this code (schema.ts, rows.ts,
 * questions.ts), imported as a dataset, and run under the three variants × two simulated models through the real
 * environment, agent loop, ingest and evaluation. Every run is named "Simulated demo" and carries
 * `config.simulated`, which the pages show.
 */
import Database from "better-sqlite3";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createSimulatedModel, SIMULATED_POLICIES } from "@/lib/agent/simulated";
import { runAgentLoop } from "@/lib/agent/loop";
import { dataDir } from "@/lib/db/client";
import type { Sql } from "@/lib/db/sql";
import { binary, many, one, qb } from "@/lib/db/typed";
import { jsonValue } from "@/lib/db/typed-sql";
import { deleteRun } from "@/lib/ingest/remove";
import { importDataset } from "@/lib/datasets/import-dataset";
import { loadQuestionFrom } from "@/lib/environment/database-info";
import { SYSTEM_OF, directivesFor, variants } from "@/lib/environment/directives";
import { SqlEnvironment } from "@/lib/environment/tools";
import { evaluateRun } from "@/lib/eval/evaluate-run";
import { SqlSandbox } from "@/lib/sandbox/sandbox";
import { ingestStream } from "@/lib/ingest/ingest";
import { toCsv } from "@/lib/metrics/csv";
import { DEMO_DATASET, DEMO_RUN_NAME } from "./names";
import { DEMO_QUESTIONS } from "./questions";
import { insertDemoRows } from "./rows";
import { DEMO_TABLES, demoDdl } from "./schema";

export { DEMO_DATASET, DEMO_RUN_NAME } from "./names";
const DB_ID = "demo_retail";

export interface DemoResult {
  dataset: string;
  seeded: boolean;
  runs: { id: string; name: string; system: string; model: string }[];
}

function writeDemoFiles(dir: string): { questions: string; databases: string; descriptions: string } {
  rmSync(dir, { recursive: true, force: true });
  const dbDir = path.join(dir, "databases", DB_ID);
  const descDir = path.join(dir, "descriptions", DB_ID);
  mkdirSync(dbDir, { recursive: true });
  mkdirSync(descDir, { recursive: true });
  const db = new Database(path.join(dbDir, `${DB_ID}.sqlite`));
  db.exec(demoDdl());
  insertDemoRows(db);
  db.close();
  for (const t of DEMO_TABLES) {
    writeFileSync(
      path.join(descDir, `${t.name}.csv`),
      toCsv(
        ["original_column_name", "column_name", "column_description", "data_format", "value_description"],
        t.columns.map((c) => [c.name, c.name.replace(/_/g, " "), c.description, c.type.toLowerCase(), c.values ?? ""]),
        { escapeFormulas: false },
      ),
    );
  }
  const questions = path.join(dir, "questions.json");
  writeFileSync(
    questions,
    JSON.stringify(
      DEMO_QUESTIONS.map((q) => ({
        question_id: q.id,
        db_id: DB_ID,
        question: q.question,
        evidence: q.evidence,
        SQL: q.sql,
        difficulty: q.difficulty,
      })),
      null,
      1,
    ),
  );
  return { questions, databases: path.join(dir, "databases"), descriptions: path.join(dir, "descriptions") };
}

export async function seedDemo(
  sql: Sql,
  opts: { force?: boolean; dir?: string; log?: (s: string) => void } = {},
): Promise<DemoResult> {
  const listRuns = (): Promise<DemoResult["runs"]> =>
    many(
      sql,
      qb(sql)
        .selectFrom("runs")
        .select(["id", "name", "system", "model"])
        .where((eb) => eb(jsonValue(sql, eb, "config", "demo"), "=", 1))
        .orderBy(binary(sql, "system"))
        .orderBy(binary(sql, "model")),
    );
  const exists = await one(sql, qb(sql).selectFrom("datasets").select("id").where("id", "=", DEMO_DATASET));
  if (exists && !opts.force && (await listRuns()).length > 0)
    return { dataset: DEMO_DATASET, seeded: false, runs: await listRuns() };
  const log = opts.log ?? (() => undefined);
  for (const run of await listRuns()) await deleteRun(sql, run.id); // --force: the new demo replaces the old one
  const files = writeDemoFiles(opts.dir ?? path.join(dataDir(), "demo"));
  await importDataset(sql, { name: DEMO_DATASET, format: "bird", ...files });
  log(`demo dataset: ${DEMO_QUESTIONS.length} questions over ${DEMO_TABLES.length} tables`);
  const sandbox = new SqlSandbox();
  const lines: string[] = [];
  try {
    for (const variant of variants) {
      for (const model of Object.keys(SIMULATED_POLICIES)) {
        for (const dq of DEMO_QUESTIONS) {
          const { question, database } = await loadQuestionFrom(sql, DEMO_DATASET, String(dq.id));
          const directives = await directivesFor(variant, question, database);
          const env = new SqlEnvironment(question, database, {
            variant,
            directives,
            sandbox,
            run: { name: `${DEMO_RUN_NAME} (${SYSTEM_OF[variant]}, ${model})`, model },
          });
          const sim = {
            id: question.id,
            goldSql: question.goldSql!,
            goldTables: question.goldTables ?? [],
            tables: database.tables.map((t) => t.name),
          };
          // The same seed per (question, model) across variants: the variants differ by their directives only.
          const seed = dq.id * 7919 + (model === "sim-hasty" ? 1 : 0);
          const { trace } = await runAgentLoop({
            model: createSimulatedModel(SIMULATED_POLICIES[model], sim, seed),
            modelName: model,
            env,
          });
          (trace.run as Record<string, unknown>).config = { simulated: true, demo: true };
          lines.push(JSON.stringify(trace));
        }
        log(`simulated ${SYSTEM_OF[variant]} × ${model}`);
      }
    }
  } finally {
    await sandbox.close();
  }
  const report = await ingestStream(
    sql,
    (async function* () {
      yield Buffer.from(lines.join("\n") + "\n");
    })(),
    { fileName: "simulated-demo.jsonl" },
  );
  for (const run of report.runs) await evaluateRun(sql, run.id);
  log(`ingested and evaluated ${report.inserted} simulated traces in ${report.runs.length} runs`);
  return { dataset: DEMO_DATASET, seeded: true, runs: await listRuns() };
}

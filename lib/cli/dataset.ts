import { count } from "@/lib/text/count";
import { parseArgs } from "node:util";
import { openStore } from "@/lib/db/store";
import { datasetFormats, type DatasetFormat } from "@/lib/datasets/question-formats";
import { importDataset, importReportJson } from "@/lib/datasets/import-dataset";
import { UsageError } from "./args";
import { computeViewsAhead } from "./views-ahead";

export async function runDatasetCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  if (sub !== "import") throw new UsageError(`unknown dataset command "${sub ?? ""}" (try: dataset import)`);
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: "string" },
      format: { type: "string" },
      questions: { type: "string" },
      databases: { type: "string" },
      tables: { type: "string" },
      ddl: { type: "string" },
      descriptions: { type: "string" },
      gold: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  if (!values.name) throw new UsageError("--name is required");
  if (!values.format || !(datasetFormats as readonly string[]).includes(values.format))
    throw new UsageError(`--format must be one of ${datasetFormats.join(", ")}`);
  if (!values.questions) throw new UsageError("--questions FILE is required");
  if ([values.databases, values.tables, values.ddl].filter(Boolean).length !== 1)
    throw new UsageError("give exactly one of --databases DIR, --tables FILE, --ddl DIR");
  const sql = await openStore();
  try {
    const r = await importDataset(sql, {
      name: values.name,
      format: values.format as DatasetFormat,
      questions: values.questions,
      databases: values.databases,
      tables: values.tables,
      ddl: values.ddl,
      descriptions: values.descriptions,
      gold: values.gold,
    });
    if (values.json) {
      console.log(JSON.stringify(importReportJson(r), null, 2));
    } else {
      console.log(
        `dataset ${r.dataset} (${r.datasetId}): ${count(r.questions, "question")} over ${count(r.databases, r.schemaOnly ? "schema-only database" : "database")}`,
      );
      console.log(
        `gold tables: ${r.goldTables.explain} by EXPLAIN, ${r.goldTables.parser} by the parser, ${r.goldTables.failed} failed`,
      );
      if (r.duplicateQuestionIds.length)
        console.log(`repeated question ids kept once: ${r.duplicateQuestionIds.join(", ")}`);
      if (r.questionsWithoutDatabase)
        console.log(
          `warning: ${count(r.questionsWithoutDatabase, "question names", "questions name")} a database that is not registered`,
        );
      if (r.linkedRuns.length) console.log(`linked and recomputed ${count(r.linkedRuns.length, "run")}`);
    }
    // The runs it linked and recomputed have new versions: their pages' views computed now, as after an ingest.
    await computeViewsAhead(sql, r.linkedRuns, values.json!);
  } finally {
    await sql.close();
  }
  return 0;
}

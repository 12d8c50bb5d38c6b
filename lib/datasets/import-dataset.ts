/**
 * Imports a benchmark: questions (BIRD, Spider, gold files, Spider2-lite) over registered databases (a folder
 * of `<db_id>/<db_id>.sqlite`, or schema-only databases built from a Spider-style tables.json or a folder of
 * DDL files), with column descriptions where the benchmark has them, and each question's gold tables.
 * Re-importing a dataset of the same name replaces it. Runs whose `benchmark` names the dataset are linked.
 */
import Database from "better-sqlite3";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { dataDir } from "@/lib/db/client";
import type { Sql } from "@/lib/db/sql";
import { insertRows, many, qb, write } from "@/lib/db/typed";
import type { DatabaseRow, ForeignKey } from "@/lib/db/schema";
import { extractTables } from "@/lib/sql/extract-tables";
import { recomputeRun } from "@/lib/ingest/recompute";
import { readDescriptions } from "./descriptions";
import { fileSize, inspectDatabase, sha256File } from "./inspect";
import {
  parseBirdQuestions,
  parseGoldFile,
  parseSpider2LiteQuestions,
  parseSpider2Standards,
  parseSpiderQuestions,
  type Spider2Gold,
  type DatasetFormat,
  type DatasetQuestion,
} from "./question-formats";
import { buildSchemaOnlyDatabase, ddlCommentForeignKeys, ddlFromSpiderSchema, type SpiderSchema } from "./schema-only";
import { decodeText } from "./text-decode";
import { fileUnder } from "@/lib/files/under";
import { detectFormat, UnknownFormatError } from "@/lib/trace/adapters";

export interface ImportOptions {
  name: string;
  format: DatasetFormat;
  questions: string;
  databases?: string;
  tables?: string;
  ddl?: string;
  descriptions?: string;
  /**
   * Spider2-lite: the gold folder — `<instance_id>.sql` files, gold answers `<instance_id>.csv` or
   * `<instance_id>_a.csv`, `_b.csv`, … and the evaluation standard `*_eval.jsonl`; flat, or laid out as Spider 2.0's
   * `evaluation_suite/gold` (`sql/`, `exec_result/`, `spider2lite_eval.jsonl`).
   */
  gold?: string;
}

export interface ImportResult {
  dataset: string;
  datasetId: string;
  questions: number;
  databases: number;
  schemaOnly: boolean;
  goldTables: { explain: number; parser: number; scan: number; failed: number };
  questionsWithoutDatabase: number;
  /** Ids that appear more than once with identical content: kept once. */
  duplicateQuestionIds: string[];
  linkedRuns: string[];
}

export function datasetIdOf(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "") || "dataset"
  );
}

function readQuestions(opts: ImportOptions): DatasetQuestion[] {
  const text = decodeText(readFileSync(opts.questions)).text;
  if (opts.format === "spider2-lite") {
    const gold = opts.gold ? spider2GoldFolder(opts.gold) : undefined;
    return parseSpider2LiteQuestions(text, (id) => gold?.of(id));
  }
  // A file that is not a JSON array is a gold file of `SQL<TAB>db_id` lines, unless it is something else given here
  // by mistake: an agent's traces, or one JSON object.
  if (!text.trimStart().startsWith("[")) {
    const mistaken = notQuestions(text);
    // By the file's name: a browser's upload is staged under a server path that is no business of the page.
    if (mistaken) throw new Error(`${path.basename(opts.questions)}: ${mistaken}`);
    return parseGoldFile(text);
  }
  return opts.format === "bird" ? parseBirdQuestions(text) : parseSpiderQuestions(text);
}

/** What a questions file given by mistake is, said with where it goes; null when it may be a gold file of lines. */
function notQuestions(text: string): string | null {
  // Spider2-lite's questions under another format: JSON lines with a `question`, which would read as canonical traces.
  const firstLine = text.trimStart().split("\n", 1)[0];
  let first: unknown = null;
  try {
    first = JSON.parse(firstLine);
  } catch {
    // not a JSON line
  }
  if (first && typeof first === "object" && "instance_id" in first && "question" in first && !("steps" in first))
    return "Spider2-lite's questions (JSON lines with instance_id, db and question): import them with the format spider2-lite (and its gold folder)";
  try {
    const format = detectFormat(text);
    return `it reads as an agent's traces (${format}), not a benchmark's questions: upload it as traces (the home page, or metron ingest FILE --dataset NAME)`;
  } catch (e) {
    if (!(e instanceof UnknownFormatError)) throw e;
  }
  if (text.trimStart().startsWith("{"))
    return 'a JSON object, not a list of questions: BIRD\'s are [{"question_id", "db_id", "question", "evidence", "SQL", …}], Spider\'s [{"db_id", "question", "query"}]; a gold file has SQL<TAB>db_id lines';
  return null;
}

const GOLD_ANSWER_MAX_BYTES = 64 * 1024 ** 2;

/** A Spider2-lite gold folder, flat or in Spider 2.0's layout (see ImportOptions.gold). */
function spider2GoldFolder(root: string) {
  const sub = (name: string) => (existsSync(path.join(root, name)) ? path.join(root, name) : root);
  const sqlDir = sub("sql");
  const csvDir = sub("exec_result");
  const csvFiles = readdirSync(csvDir).filter((f) => /\.csv$/i.test(f));
  const standardFiles = readdirSync(root).filter((f) => /_eval\.jsonl$/i.test(f));
  const standards = new Map<string, Spider2Gold["standard"]>();
  for (const f of standardFiles)
    for (const [id, s] of parseSpider2Standards(decodeText(readFileSync(path.join(root, f))).text, f))
      standards.set(id, s);
  return {
    of(id: string): Spider2Gold {
      const sqlFile = fileUnder(sqlDir, id, ".sql", "instance_id");
      // Spider 2.0's resolve_gold_paths: `<id>.csv` alone, else `<id>_<letter>.csv` in name order.
      const single = csvFiles.find((f) => f === `${id}.csv`);
      const answers = single
        ? [single]
        : csvFiles
            .filter(
              (f) => f.length === id.length + 6 && f.startsWith(`${id}_`) && /^_[a-z]\.csv$/.test(f.slice(id.length)),
            )
            .sort();
      return {
        sql: existsSync(sqlFile) ? readFileSync(sqlFile, "utf8").trim() : undefined,
        answers: answers.map((f) => {
          const file = fileUnder(csvDir, f, "", "gold answer");
          // Stored in the store with its question: bounded (Spider 2.0's largest local answers are a few MB).
          if (statSync(file).size > GOLD_ANSWER_MAX_BYTES)
            throw new Error(`gold answer ${f}: over ${GOLD_ANSWER_MAX_BYTES} bytes; not imported`);
          return decodeText(readFileSync(file)).text;
        }),
        standard: standards.get(id),
      };
    },
  };
}

interface PlannedDatabase {
  dbId: string;
  file: string;
  schemaOnly: boolean;
  source: string;
  build?: () => void;
  /** Foreign keys the source states outside the schema (DDL comments). */
  extraForeignKeys?: () => ForeignKey[];
}

function planDatabases(opts: ImportOptions, datasetId: string, filesDir: string): PlannedDatabase[] {
  const out: PlannedDatabase[] = [];
  const builtDir = path.join(filesDir, "databases", datasetId);
  if (opts.databases) {
    for (const dbId of readdirSync(opts.databases)) {
      const file = fileUnder(fileUnder(opts.databases, dbId), dbId, ".sqlite", "database folder");
      if (existsSync(file)) out.push({ dbId, file, schemaOnly: false, source: "sqlite" });
    }
  } else if (opts.tables) {
    const schemas = JSON.parse(decodeText(readFileSync(opts.tables)).text) as SpiderSchema[];
    if (!Array.isArray(schemas)) throw new Error("tables.json: not a JSON array of database schemas");
    for (const [i, schema] of schemas.entries()) {
      const file = fileUnder(builtDir, schema?.db_id, ".sqlite", `tables.json[${i}].db_id`);
      out.push({
        dbId: schema.db_id,
        file,
        schemaOnly: true,
        source: "tables.json",
        build: () => buildSchemaOnlyDatabase(file, ddlFromSpiderSchema(schema)),
      });
    }
  } else if (opts.ddl) {
    for (const name of readdirSync(opts.ddl).filter((f) => f.endsWith(".sql"))) {
      const dbId = name.slice(0, -4);
      const file = fileUnder(builtDir, dbId, ".sqlite", "DDL file");
      const ddlFile = fileUnder(opts.ddl, name, "", "DDL file");
      const ddl = () => decodeText(readFileSync(ddlFile)).text;
      out.push({
        dbId,
        file,
        schemaOnly: true,
        source: "ddl",
        build: () => buildSchemaOnlyDatabase(file, ddl()),
        extraForeignKeys: () => ddlCommentForeignKeys(ddl()),
      });
    }
  } else {
    throw new Error(
      "give the databases: --databases DIR (of <db_id>/<db_id>.sqlite), --tables tables.json, or --ddl DIR",
    );
  }
  if (out.length === 0) throw new Error("no database found where the options point");
  if (out.some((d) => d.build)) mkdirSync(builtDir, { recursive: true });
  return out;
}

/** `filesDir` holds the schema-only databases built here; by default the store's folder. */
/** Drops repeated ids whose content is identical (BIRD mini-dev repeats 137 and 138); refuses conflicting ones. */
function dedupeQuestions(all: DatasetQuestion[]): { questions: DatasetQuestion[]; duplicates: string[] } {
  const seen = new Map<string, DatasetQuestion>();
  const duplicates: string[] = [];
  for (const q of all) {
    const first = seen.get(q.id);
    if (!first) seen.set(q.id, q);
    else if (JSON.stringify(first) === JSON.stringify(q)) duplicates.push(q.id);
    else throw new Error(`question id ${q.id} appears twice with different content`);
  }
  return { questions: [...seen.values()], duplicates };
}

/** `filesDir` holds the schema-only databases built here; by default the store's folder. */
export async function importDataset(sql: Sql, opts: ImportOptions, filesDir = dataDir()): Promise<ImportResult> {
  const datasetId = datasetIdOf(opts.name);
  const { questions, duplicates } = dedupeQuestions(readQuestions(opts));
  const planned = planDatabases(opts, datasetId, filesDir);
  const rows: (Omit<DatabaseRow, "id"> & { id: string })[] = [];
  for (const p of planned) {
    p.build?.();
    const descriptions = opts.descriptions ? readDescriptions(opts.descriptions, p.dbId).map : undefined;
    const inspected = inspectDatabase(p.file, descriptions);
    const { tables } = inspected;
    const foreignKeys = [...inspected.foreignKeys];
    for (const fk of p.extraForeignKeys?.() ?? []) {
      const known = tables.some((t) => t.name.toLowerCase() === fk.refTable.toLowerCase());
      const dup = foreignKeys.some((f) => f.table === fk.table && f.column === fk.column && f.refTable === fk.refTable);
      if (known && !dup) foreignKeys.push(fk);
    }
    rows.push({
      id: `${datasetId}:${p.dbId}`,
      datasetId,
      dbId: p.dbId,
      path: p.file,
      sha256: await sha256File(p.file),
      sizeBytes: fileSize(p.file),
      schemaOnly: p.schemaOnly,
      source: p.source,
      tables,
      foreignKeys,
      tableCount: tables.length,
      columnCount: tables.reduce((n, t) => n + t.columns.length, 0),
      rowCount: tables.reduce((n, t) => n + t.rows, 0),
    });
  }

  // Gold tables through EXPLAIN against each question's database (read-only).
  const byDbId = new Map(rows.map((r) => [r.dbId, r]));
  const handles = new Map<string, Database.Database>();
  const counts = { explain: 0, parser: 0, scan: 0, failed: 0 };
  let withoutDatabase = 0;
  const questionRows = questions.map((q, position) => {
    const dbRow = byDbId.get(q.dbId);
    if (!dbRow) withoutDatabase++;
    let handle = dbRow ? handles.get(dbRow.dbId) : undefined;
    if (dbRow && !handle) {
      handle = new Database(dbRow.path, { readonly: true, fileMustExist: true });
      handles.set(dbRow.dbId, handle);
    }
    const result = q.goldSql ? extractTables(q.goldSql, handle, undefined, "parser", "fail") : undefined;
    if (result?.ok) counts[result.method]++;
    else if (result) counts.failed++;
    return {
      datasetId,
      questionId: q.id,
      dbId: q.dbId,
      text: q.text,
      evidence: q.evidence ?? null,
      goldSql: q.goldSql ?? null,
      difficulty: q.difficulty ?? null,
      goldTables: result?.ok ? result.tables : null,
      goldTablesMethod: result?.method ?? null,
      goldTablesError: result && !result.ok ? result.error : null,
      goldAnswers: q.goldAnswers ?? null,
      evalStandard: q.evalStandard ?? null,
      position,
    };
  });
  for (const h of handles.values()) h.close();

  const linkedRuns = await sql.transaction(async (tx) => {
    await write(tx, qb(tx).deleteFrom("questions").where("dataset_id", "=", datasetId));
    await write(tx, qb(tx).deleteFrom("databases").where("dataset_id", "=", datasetId));
    await write(
      tx,
      qb(tx)
        .insertInto("datasets")
        .values({ id: datasetId, name: opts.name, format: opts.format, question_count: questions.length })
        .onConflict((oc) =>
          oc.column("id").doUpdateSet((eb) => ({
            name: eb.ref("excluded.name"),
            format: eb.ref("excluded.format"),
            question_count: eb.ref("excluded.question_count"),
          })),
        ),
    );
    await insertRows(
      tx,
      "databases",
      rows.map((r) => ({
        id: r.id,
        dataset_id: r.datasetId,
        db_id: r.dbId,
        path: r.path,
        sha256: r.sha256,
        size_bytes: r.sizeBytes,
        schema_only: r.schemaOnly ? 1 : 0,
        source: r.source,
        tables: JSON.stringify(r.tables),
        foreign_keys: JSON.stringify(r.foreignKeys),
        table_count: r.tableCount,
        column_count: r.columnCount,
        row_count: r.rowCount,
      })),
    );
    // The questions were deleted above and are unique by id (dedupeQuestions): plain inserts.
    await insertRows(
      tx,
      "questions",
      questionRows.map((q) => ({
        dataset_id: q.datasetId,
        question_id: q.questionId,
        db_id: q.dbId,
        text: q.text,
        evidence: q.evidence,
        gold_sql: q.goldSql,
        difficulty: q.difficulty,
        gold_tables: q.goldTables ? JSON.stringify(q.goldTables) : null,
        gold_tables_method: q.goldTablesMethod,
        gold_tables_error: q.goldTablesError,
        gold_answers: q.goldAnswers ? JSON.stringify(q.goldAnswers) : null,
        eval_standard: q.evalStandard ? JSON.stringify(q.evalStandard) : null,
        position: q.position,
      })),
    );
    // Runs already linked (a re-import) and runs whose benchmark names this dataset.
    const linked = await many(
      tx,
      qb(tx)
        .selectFrom("runs")
        .select("id")
        .where((eb) =>
          eb.or([
            eb("dataset_id", "=", datasetId),
            eb.and([eb("dataset_id", "is", null), eb("benchmark", "in", [opts.name, datasetId])]),
          ]),
        ),
    );
    for (const r of linked)
      await write(tx, qb(tx).updateTable("runs").set({ dataset_id: datasetId }).where("id", "=", r.id));
    return linked.map((r) => r.id);
  });
  for (const runId of linkedRuns) await recomputeRun(sql, runId);

  return {
    dataset: opts.name,
    datasetId,
    questions: questions.length,
    databases: rows.length,
    schemaOnly: rows.every((r) => r.schemaOnly),
    goldTables: counts,
    questionsWithoutDatabase: withoutDatabase,
    duplicateQuestionIds: duplicates,
    linkedRuns,
  };
}

/** The report of an import as `metron dataset import --json` prints it (and the browser's import shows it). */
export function importReportJson(r: ImportResult) {
  return {
    dataset: r.dataset,
    questions: r.questions,
    databases: r.databases,
    schema_only: r.schemaOnly,
    gold_tables: r.goldTables,
    questions_without_database: r.questionsWithoutDatabase,
    duplicate_question_ids: r.duplicateQuestionIds,
    linked_runs: r.linkedRuns,
  };
}

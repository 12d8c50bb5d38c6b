/** A registered database of a dataset, as the environment's tools and directive strategies see it. */
import type { ForeignKey, TableInfo } from "@/lib/db/schema";
import type { Sql } from "@/lib/db/sql";

export interface DatabaseInfo {
  datasetId: string;
  dbId: string;
  path: string;
  sha256: string;
  schemaOnly: boolean;
  tables: TableInfo[];
  foreignKeys: ForeignKey[];
}

export interface QuestionInfo {
  id: string;
  dbId: string;
  text: string;
  evidence: string | null;
  goldSql: string | null;
  goldTables: string[] | null;
}

const DATASET_SQL = "SELECT id FROM datasets WHERE id = ? OR name = ?";
const QUESTION_SQL =
  "SELECT question_id AS id, db_id AS dbId, text, evidence, gold_sql AS goldSql, gold_tables AS goldTables FROM questions WHERE dataset_id = ? AND question_id = ?";
const DATABASE_SQL =
  "SELECT path, sha256, schema_only AS schemaOnly, tables, foreign_keys AS foreignKeys FROM databases WHERE id = ?";
type QuestionRow = Omit<QuestionInfo, "goldTables"> & { goldTables: string | null };
type DatabaseRow = { path: string; sha256: string; schemaOnly: number; tables: string; foreignKeys: string };

function questionInfo(datasetRef: string, dataset: { id: string } | undefined, questionId: string, q?: QuestionRow) {
  if (!dataset) throw new Error(`no dataset "${datasetRef}": import it first (metron dataset import)`);
  if (!q) throw new Error(`dataset ${dataset.id} has no question "${questionId}"`);
  return { ...q, goldTables: q.goldTables ? (JSON.parse(q.goldTables) as string[]) : null };
}

function databaseInfo(datasetId: string, dbId: string, d: DatabaseRow | undefined): DatabaseInfo {
  if (!d) throw new Error(`database ${dbId} is not registered in dataset ${datasetId}`);
  return {
    datasetId,
    dbId,
    path: d.path,
    sha256: d.sha256,
    schemaOnly: Number(d.schemaOnly) === 1,
    tables: JSON.parse(d.tables),
    foreignKeys: JSON.parse(d.foreignKeys),
  };
}

/** A dataset question (by dataset id or name) and its registered database, on either engine. */
export async function loadQuestionFrom(
  sql: Sql,
  datasetRef: string,
  questionId: string,
): Promise<{ question: QuestionInfo; database: DatabaseInfo }> {
  const dataset = await sql.get<{ id: string }>(DATASET_SQL, [datasetRef, datasetRef]);
  const q = dataset ? await sql.get<QuestionRow>(QUESTION_SQL, [dataset.id, questionId]) : undefined;
  const question = questionInfo(datasetRef, dataset, questionId, q);
  return { question, database: await loadDatabaseFrom(sql, dataset!.id, question.dbId) };
}

/** A registered database of a dataset, on either engine. */
export async function loadDatabaseFrom(sql: Sql, datasetId: string, dbId: string): Promise<DatabaseInfo> {
  return databaseInfo(datasetId, dbId, await sql.get<DatabaseRow>(DATABASE_SQL, [`${datasetId}:${dbId}`]));
}

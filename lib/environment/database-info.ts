/** A registered database of a dataset, as the environment's tools and directive strategies see it. */
import type Database from "better-sqlite3";
import type { ForeignKey, TableInfo } from "@/lib/db/schema";

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

export function loadQuestion(
  sqlite: Database.Database,
  datasetRef: string,
  questionId: string,
): { question: QuestionInfo; database: DatabaseInfo } {
  const dataset = sqlite.prepare("SELECT id FROM datasets WHERE id = ? OR name = ?").get(datasetRef, datasetRef) as
    { id: string } | undefined;
  if (!dataset) throw new Error(`no dataset "${datasetRef}": import it first (metron dataset import)`);
  const q = sqlite
    .prepare(
      "SELECT question_id AS id, db_id AS dbId, text, evidence, gold_sql AS goldSql, gold_tables AS goldTables FROM questions WHERE dataset_id = ? AND question_id = ?",
    )
    .get(dataset.id, questionId) as (Omit<QuestionInfo, "goldTables"> & { goldTables: string | null }) | undefined;
  if (!q) throw new Error(`dataset ${dataset.id} has no question "${questionId}"`);
  return {
    question: { ...q, goldTables: q.goldTables ? JSON.parse(q.goldTables) : null },
    database: loadDatabase(sqlite, dataset.id, q.dbId),
  };
}

export function loadDatabase(sqlite: Database.Database, datasetId: string, dbId: string): DatabaseInfo {
  const d = sqlite
    .prepare(
      "SELECT path, sha256, schema_only AS schemaOnly, tables, foreign_keys AS foreignKeys FROM databases WHERE id = ?",
    )
    .get(`${datasetId}:${dbId}`) as
    { path: string; sha256: string; schemaOnly: number; tables: string; foreignKeys: string } | undefined;
  if (!d) throw new Error(`database ${dbId} is not registered in dataset ${datasetId}`);
  return {
    datasetId,
    dbId,
    path: d.path,
    sha256: d.sha256,
    schemaOnly: d.schemaOnly === 1,
    tables: JSON.parse(d.tables),
    foreignKeys: JSON.parse(d.foreignKeys),
  };
}

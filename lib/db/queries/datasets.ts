import type { Sql } from "@/lib/db/sql";

export interface DatasetListRow {
  id: string;
  name: string;
  format: string;
  questionCount: number;
  databases: number;
  schemaOnly: number;
  runs: number;
  createdAt: string;
}

export async function listDatasets(sql: Sql): Promise<DatasetListRow[]> {
  return (await sql.all(`SELECT d.id, d.name, d.format, d.question_count AS questionCount, d.created_at AS createdAt,
      (SELECT count(*) FROM databases b WHERE b.dataset_id = d.id) AS databases,
      (SELECT count(*) FROM databases b WHERE b.dataset_id = d.id AND b.schema_only = 1) AS schemaOnly,
      (SELECT count(*) FROM runs r WHERE r.dataset_id = d.id) AS runs
    FROM datasets d ORDER BY ${sql.d.binary("d.name")}`)) as DatasetListRow[];
}

export interface DatabaseListRow {
  dbId: string;
  path: string;
  sha256: string;
  sizeBytes: number;
  schemaOnly: number;
  source: string;
  tableCount: number;
  columnCount: number;
  rowCount: number;
  questions: number;
}

export async function listDatabases(sql: Sql, datasetId: string): Promise<DatabaseListRow[]> {
  return (await sql.all(
    `SELECT b.db_id AS dbId, b.path, b.sha256, b.size_bytes AS sizeBytes, b.schema_only AS schemaOnly, b.source,
      b.table_count AS tableCount, b.column_count AS columnCount, b.row_count AS rowCount,
      (SELECT count(*) FROM questions q WHERE q.dataset_id = b.dataset_id AND q.db_id = b.db_id) AS questions
    FROM databases b WHERE b.dataset_id = ? ORDER BY ${sql.d.binary("b.db_id")}`,
    [datasetId],
  )) as DatabaseListRow[];
}

export interface QuestionListRow {
  questionId: string;
  dbId: string;
  text: string;
  difficulty: string | null;
  goldTables: string | null;
  goldTablesMethod: string | null;
  goldTablesError: string | null;
}

export async function listQuestions(
  sql: Sql,
  datasetId: string,
  page: number,
  pageSize: number,
): Promise<{ rows: QuestionListRow[]; total: number }> {
  const total = (
    (await sql.get("SELECT count(*) AS n FROM questions WHERE dataset_id = ?", [datasetId])) as { n: number }
  ).n;
  const rows = (await sql.all(
    `SELECT question_id AS questionId, db_id AS dbId, text, difficulty, gold_tables AS goldTables,
      gold_tables_method AS goldTablesMethod, gold_tables_error AS goldTablesError
    FROM questions WHERE dataset_id = ? ORDER BY position LIMIT ? OFFSET ?`,
    [datasetId, pageSize, (Math.max(1, page) - 1) * pageSize],
  )) as QuestionListRow[];
  return { rows, total };
}

export async function countQuestions(sql: Sql, datasetId: string): Promise<number> {
  return ((await sql.get("SELECT count(*) AS n FROM questions WHERE dataset_id = ?", [datasetId])) as { n: number }).n;
}

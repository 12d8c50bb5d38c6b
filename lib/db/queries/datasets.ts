import type { Db } from "@/lib/db/client";

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

export function listDatasets(db: Db): DatasetListRow[] {
  return db.$client
    .prepare(
      `SELECT d.id, d.name, d.format, d.question_count AS questionCount, d.created_at AS createdAt,
      (SELECT count(*) FROM databases b WHERE b.dataset_id = d.id) AS databases,
      (SELECT count(*) FROM databases b WHERE b.dataset_id = d.id AND b.schema_only) AS schemaOnly,
      (SELECT count(*) FROM runs r WHERE r.dataset_id = d.id) AS runs
    FROM datasets d ORDER BY d.name`,
    )
    .all() as DatasetListRow[];
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

export function listDatabases(db: Db, datasetId: string): DatabaseListRow[] {
  return db.$client
    .prepare(
      `SELECT b.db_id AS dbId, b.path, b.sha256, b.size_bytes AS sizeBytes, b.schema_only AS schemaOnly, b.source,
      b.table_count AS tableCount, b.column_count AS columnCount, b.row_count AS rowCount,
      (SELECT count(*) FROM questions q WHERE q.dataset_id = b.dataset_id AND q.db_id = b.db_id) AS questions
    FROM databases b WHERE b.dataset_id = ? ORDER BY b.db_id`,
    )
    .all(datasetId) as DatabaseListRow[];
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

export function listQuestions(
  db: Db,
  datasetId: string,
  page: number,
  pageSize: number,
): { rows: QuestionListRow[]; total: number } {
  const total = (
    db.$client.prepare("SELECT count(*) AS n FROM questions WHERE dataset_id = ?").get(datasetId) as { n: number }
  ).n;
  const rows = db.$client
    .prepare(
      `SELECT question_id AS questionId, db_id AS dbId, text, difficulty, gold_tables AS goldTables,
      gold_tables_method AS goldTablesMethod, gold_tables_error AS goldTablesError
    FROM questions WHERE dataset_id = ? ORDER BY position LIMIT ? OFFSET ?`,
    )
    .all(datasetId, pageSize, (Math.max(1, page) - 1) * pageSize) as QuestionListRow[];
  return { rows, total };
}

export function countQuestions(db: Db, datasetId: string): number {
  return (
    db.$client.prepare("SELECT count(*) AS n FROM questions WHERE dataset_id = ?").get(datasetId) as { n: number }
  ).n;
}

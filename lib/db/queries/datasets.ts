import type { Sql } from "@/lib/db/sql";
import { binary, many, one, qb } from "@/lib/db/typed";

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

const n = (v: unknown) => Number(v ?? 0);

export async function listDatasets(sql: Sql): Promise<DatasetListRow[]> {
  const q = qb(sql);
  const rows = await many(
    sql,
    q
      .selectFrom("datasets as d")
      .select((eb) => [
        "d.id",
        "d.name",
        "d.format",
        "d.question_count as questionCount",
        "d.created_at as createdAt",
        eb
          .selectFrom("databases as b")
          .select(eb.fn.countAll().as("n"))
          .whereRef("b.dataset_id", "=", "d.id")
          .as("databases"),
        eb
          .selectFrom("databases as b")
          .select(eb.fn.countAll().as("n"))
          .whereRef("b.dataset_id", "=", "d.id")
          .where("b.schema_only", "=", 1)
          .as("schemaOnly"),
        eb.selectFrom("runs as r").select(eb.fn.countAll().as("n")).whereRef("r.dataset_id", "=", "d.id").as("runs"),
      ])
      .orderBy(binary(sql, "d.name")),
  );
  return rows.map((r) => ({ ...r, databases: n(r.databases), schemaOnly: n(r.schemaOnly), runs: n(r.runs) }));
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
  const rows = await many(
    sql,
    qb(sql)
      .selectFrom("databases as b")
      .select((eb) => [
        "b.db_id as dbId",
        "b.path",
        "b.sha256",
        "b.size_bytes as sizeBytes",
        "b.schema_only as schemaOnly",
        "b.source",
        "b.table_count as tableCount",
        "b.column_count as columnCount",
        "b.row_count as rowCount",
        eb
          .selectFrom("questions as q")
          .select(eb.fn.countAll().as("n"))
          .whereRef("q.dataset_id", "=", "b.dataset_id")
          .whereRef("q.db_id", "=", "b.db_id")
          .as("questions"),
      ])
      .where("b.dataset_id", "=", datasetId)
      .orderBy(binary(sql, "b.db_id")),
  );
  return rows.map((r) => ({ ...r, questions: n(r.questions) }));
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
  const [total, rows] = await Promise.all([
    countQuestions(sql, datasetId),
    many(
      sql,
      qb(sql)
        .selectFrom("questions")
        .select([
          "question_id as questionId",
          "db_id as dbId",
          "text",
          "difficulty",
          "gold_tables as goldTables",
          "gold_tables_method as goldTablesMethod",
          "gold_tables_error as goldTablesError",
        ])
        .where("dataset_id", "=", datasetId)
        .orderBy("position")
        .limit(pageSize)
        .offset((Math.max(1, page) - 1) * pageSize),
    ),
  ]);
  return { rows, total };
}

export async function countQuestions(sql: Sql, datasetId: string): Promise<number> {
  const q = qb(sql);
  return n(
    (await one(sql, q.selectFrom("questions").select(q.fn.countAll().as("n")).where("dataset_id", "=", datasetId)))?.n,
  );
}

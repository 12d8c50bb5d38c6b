/** A registered database of a dataset, as the environment's tools and directive strategies see it. */
import type { ForeignKey, TableInfo } from "@/lib/db/schema";
import type { Sql } from "@/lib/db/sql";
import { one, qb } from "@/lib/db/typed";

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
  const q0 = qb(sql);
  const dataset = await one(
    sql,
    q0
      .selectFrom("datasets")
      .select("id")
      .where((eb) => eb.or([eb("id", "=", datasetRef), eb("name", "=", datasetRef)])),
  );
  const q = dataset
    ? await one(
        sql,
        q0
          .selectFrom("questions")
          .select([
            "question_id as id",
            "db_id as dbId",
            "text",
            "evidence",
            "gold_sql as goldSql",
            "gold_tables as goldTables",
          ])
          .where("dataset_id", "=", dataset.id)
          .where("question_id", "=", questionId),
      )
    : undefined;
  const question = questionInfo(datasetRef, dataset, questionId, q);
  return { question, database: await loadDatabaseFrom(sql, dataset!.id, question.dbId) };
}

/** A registered database of a dataset, on either engine. */
export async function loadDatabaseFrom(sql: Sql, datasetId: string, dbId: string): Promise<DatabaseInfo> {
  const row = await one(
    sql,
    qb(sql)
      .selectFrom("databases")
      .select(["path", "sha256", "schema_only as schemaOnly", "tables", "foreign_keys as foreignKeys"])
      .where("id", "=", `${datasetId}:${dbId}`),
  );
  return databaseInfo(datasetId, dbId, row);
}

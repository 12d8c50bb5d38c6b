/** The store's schema (schema.ts re-exports it): benchmark datasets, their databases, questions and gold results. */
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt } from "./schema-columns";

export interface ColumnInfo {
  name: string;
  type: string;
  pk: boolean;
  description?: string;
  valueDescription?: string;
}
export interface TableInfo {
  name: string;
  rows: number;
  columns: ColumnInfo[];
}
export interface ForeignKey {
  table: string;
  column: string;
  refTable: string;
  refColumn: string;
}

export const datasets = sqliteTable("datasets", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  format: text("format").notNull(),
  questionCount: integer("question_count").notNull().default(0),
  createdAt: createdAt(),
});

export const databases = sqliteTable(
  "databases",
  {
    id: text("id").primaryKey(),
    datasetId: text("dataset_id").notNull(),
    dbId: text("db_id").notNull(),
    path: text("path").notNull(),
    sha256: text("sha256").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    /** Built from tables.json or DDL: no rows, so query results are empty. */
    schemaOnly: integer("schema_only", { mode: "boolean" }).notNull().default(false),
    source: text("source").notNull(),
    tables: text("tables", { mode: "json" }).$type<TableInfo[]>().notNull(),
    foreignKeys: text("foreign_keys", { mode: "json" }).$type<ForeignKey[]>().notNull(),
    tableCount: integer("table_count").notNull().default(0),
    columnCount: integer("column_count").notNull().default(0),
    rowCount: integer("row_count").notNull().default(0),
  },
  (t) => [index("databases_dataset").on(t.datasetId, t.dbId)],
);

export const questions = sqliteTable(
  "questions",
  {
    datasetId: text("dataset_id").notNull(),
    questionId: text("question_id").notNull(),
    dbId: text("db_id").notNull(),
    text: text("text").notNull(),
    evidence: text("evidence"),
    goldSql: text("gold_sql"),
    difficulty: text("difficulty"),
    goldTables: text("gold_tables", { mode: "json" }).$type<string[]>(),
    goldTablesMethod: text("gold_tables_method"),
    goldTablesError: text("gold_tables_error"),
    /** Spider 2.0: the gold answers as CSV texts (`<id>.csv`, or `<id>_a.csv`, `<id>_b.csv`, …), a JSON array. */
    goldAnswers: text("gold_answers", { mode: "json" }).$type<string[]>(),
    /** Spider 2.0: the question's evaluation standard (`condition_cols`, `ignore_order`), as in spider2lite_eval.jsonl. */
    evalStandard: text("eval_standard", { mode: "json" }).$type<{ condition_cols?: unknown; ignore_order?: boolean }>(),
    position: integer("position").notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.datasetId, t.questionId] })],
);

/** Gold query results, cached per (database file hash, SQL). */
export const goldResults = sqliteTable(
  "gold_results",
  {
    dbSha256: text("db_sha256").notNull(),
    sqlHash: text("sql_hash").notNull(),
    result: text("result"),
    error: text("error"),
  },
  (t) => [primaryKey({ columns: [t.dbSha256, t.sqlHash] })],
);

export type Dataset = typeof datasets.$inferSelect;
export type DatabaseRow = typeof databases.$inferSelect;
export type QuestionRow = typeof questions.$inferSelect;

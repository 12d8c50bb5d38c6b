/**
 * What measuring looks up in the store (a run's dataset, a question, a database): read through the store's own
 * connection on SQLite (prepared statements, synchronous), or preloaded per dataset through `Sql` on PostgreSQL;
 * chosen once by engine (`openLookups`).
 */
import Database from "better-sqlite3";
import type { Sql } from "@/lib/db/sql";
import type { DatasetQuestionRef } from "./measure";

/**
 * What measuring reads of the store: a dataset by id or name, a question, a registered database. Synchronous (the
 * measurement runs inside the writer's loop); `openLookups` chooses them once by engine: on SQLite they read the
 * connection as they go, elsewhere (PostgreSQL) they are primed with a dataset's rows before its traces are measured.
 */
export interface MeasureLookups {
  datasetId(idOrName: string): string | null;
  question(
    datasetId: string,
    questionId: string,
  ): (Omit<DatasetQuestionRef, "goldTables"> & { goldTables: string | null }) | undefined;
  database(key: string): { path: string; tables: string } | undefined;
}

const QUESTION_COLUMNS = `db_id AS dbId, text, evidence, gold_sql AS goldSql, difficulty, gold_tables AS goldTables, gold_tables_method AS goldTablesMethod,
        gold_tables_error AS goldTablesError`;

/** Lookups with `prime`: awaited before a dataset's traces are measured (nothing to do on SQLite). */
export interface StoreLookups extends MeasureLookups {
  prime(idOrName: string | null | undefined): void | Promise<void>;
}

/** The store's lookups, chosen by engine: read as they go from a SQLite connection, else preloaded. */
export async function openLookups(sql: Sql): Promise<StoreLookups> {
  return sql.connection ? storeLookups(sql.connection) : PreloadedLookups.load(sql);
}

/** The lookups straight from a SQLite connection. */
export function storeLookups(sqlite: Database.Database): StoreLookups {
  const dataset = sqlite.prepare("SELECT id FROM datasets WHERE id = ? OR name = ?");
  const question = sqlite.prepare(`SELECT ${QUESTION_COLUMNS} FROM questions WHERE dataset_id = ? AND question_id = ?`);
  const database = sqlite.prepare("SELECT path, tables FROM databases WHERE id = ?");
  return {
    datasetId: (v) => (dataset.get(v, v) as { id: string } | undefined)?.id ?? null,
    question: (d, q) => question.get(d, q) as ReturnType<MeasureLookups["question"]>,
    database: (key) => database.get(key) as ReturnType<MeasureLookups["database"]>,
    prime: () => undefined,
  };
}

/** The lookups over any store: every dataset's id and name at once, a dataset's questions and databases on `prime`. */
export class PreloadedLookups implements StoreLookups {
  private datasets = new Map<string, string>();
  private questions = new Map<string, NonNullable<ReturnType<MeasureLookups["question"]>>>();
  private databases = new Map<string, { path: string; tables: string }>();
  private primed = new Set<string>();

  private constructor(private sql: Sql) {}

  static async load(sql: Sql): Promise<PreloadedLookups> {
    const l = new PreloadedLookups(sql);
    for (const d of await sql.all<{ id: string; name: string }>("SELECT id, name FROM datasets")) {
      l.datasets.set(d.name, d.id);
      l.datasets.set(d.id, d.id);
    }
    return l;
  }

  /** Reads a dataset's questions and databases (once) so that measuring its traces reads nothing more. */
  async prime(idOrName: string | null | undefined): Promise<void> {
    const id = idOrName ? this.datasetId(idOrName) : null;
    if (!id || this.primed.has(id)) return;
    this.primed.add(id);
    const qs = await this.sql.all<NonNullable<ReturnType<MeasureLookups["question"]>> & { questionId: string }>(
      `SELECT question_id AS questionId, ${QUESTION_COLUMNS} FROM questions WHERE dataset_id = ?`,
      [id],
    );
    for (const { questionId, ...q } of qs) this.questions.set(`${id}\u0000${questionId}`, q);
    for (const d of await this.sql.all<{ id: string; path: string; tables: string }>(
      "SELECT id, path, tables FROM databases WHERE dataset_id = ?",
      [id],
    ))
      this.databases.set(d.id, { path: d.path, tables: d.tables });
  }

  datasetId(v: string): string | null {
    return this.datasets.get(v) ?? null;
  }
  question(d: string, q: string) {
    return this.questions.get(`${d}\u0000${q}`);
  }
  database(key: string) {
    return this.databases.get(key);
  }
}

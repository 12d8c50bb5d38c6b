/**
 * What measuring looks up in the store (a run's dataset, a question, a database): read through the store's own
 * connection on SQLite (prepared statements, synchronous), or preloaded per dataset through `Sql` on PostgreSQL;
 * chosen once by engine (`openLookups`).
 */
import Database from "better-sqlite3";
import type { Dialect, Sql } from "@/lib/db/sql";
import { many, qb } from "@/lib/db/typed";
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

const QUESTION_COLUMNS = [
  "db_id as dbId",
  "text",
  "evidence",
  "gold_sql as goldSql",
  "difficulty",
  "gold_tables as goldTables",
  "gold_tables_method as goldTablesMethod",
  "gold_tables_error as goldTablesError",
] as const;

/** The three lookups' queries (parameters: the id twice; the dataset and question; the database's key). */
const lookupQueries = (dialect: Dialect) => {
  const q = qb({ dialect });
  return {
    dataset: (v: string) =>
      q
        .selectFrom("datasets")
        .select("id")
        .where((eb) => eb.or([eb("id", "=", v), eb("name", "=", v)])),
    question: (d: string, id: string) =>
      q.selectFrom("questions").select(QUESTION_COLUMNS).where("dataset_id", "=", d).where("question_id", "=", id),
    database: (key: string) => q.selectFrom("databases").select(["path", "tables"]).where("id", "=", key),
  };
};

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
  // Compiled once and prepared on the connection: measuring looks up a question per trace.
  const queries = lookupQueries("sqlite");
  const dataset = sqlite.prepare(queries.dataset("").compile().sql);
  const question = sqlite.prepare(queries.question("", "").compile().sql);
  const database = sqlite.prepare(queries.database("").compile().sql);
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
    for (const d of await many(sql, qb(sql).selectFrom("datasets").select(["id", "name"]))) {
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
    const q = qb(this.sql);
    const qs = await many(
      this.sql,
      q
        .selectFrom("questions")
        .select(["question_id as questionId", ...QUESTION_COLUMNS])
        .where("dataset_id", "=", id),
    );
    for (const { questionId, ...row } of qs) this.questions.set(`${id}\u0000${questionId}`, row);
    for (const d of await many(
      this.sql,
      q.selectFrom("databases").select(["id", "path", "tables"]).where("dataset_id", "=", id),
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

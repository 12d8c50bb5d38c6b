/**
 * What keeps the search index in step with the store, on either engine: chosen once by engine (`searchIndexer`).
 * Both index the traces not indexed yet, oldest first, in transactions of 200, and remove a trace's documents with it.
 */
import type { Param, Sql } from "@/lib/db/sql";
import { postgresIndexer } from "./indexer-postgres";
import { sqliteIndexer } from "./indexer-sqlite";

export interface SearchIndexer {
  /** Indexes what is missing; stops after `budgetMs` (the rest waits for the next call). */
  sync(opts?: { budgetMs?: number }): Promise<{ indexed: number; pending: number }>;
  /** Removes the documents of the traces `where` selects (inside the caller's transaction). */
  remove(where: string, params: Param[]): Promise<void>;
}

export function searchIndexer(sql: Sql): SearchIndexer {
  return sql.connection ? sqliteIndexer(sql.connection) : postgresIndexer(sql);
}

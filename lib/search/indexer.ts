/**
 * What keeps the search index in step with the store, on either engine: chosen once by engine (`searchIndexer`).
 * Both index the traces not indexed yet, oldest first, in transactions of 200, and remove a trace's documents with it.
 */
import type { Sql } from "@/lib/db/sql";
import type { SearchIndexer } from "./search-indexer";

export type { SearchIndexer };
import { postgresIndexer } from "./indexer-postgres";
import { sqliteIndexer } from "./indexer-sqlite";

export function searchIndexer(sql: Sql): SearchIndexer {
  return sql.connection ? sqliteIndexer(sql, sql.connection) : postgresIndexer(sql);
}

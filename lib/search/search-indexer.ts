/** What keeps the search index in step with the store (one per engine: indexer-sqlite.ts, indexer-postgres.ts). */
import type { TraceSelection } from "@/lib/db/typed-sql";

export interface SyncOptions {
  budgetMs?: number;
  readAhead?: boolean;
}

export interface SearchIndexer {
  /**
   * Indexes what is missing; stops after `budgetMs` (the rest waits for the next call). `readAhead`: when many traces
   * wait (METRON_SEARCH_READER_TRACES), read their documents in a worker thread while this connection writes (SQLite;
   * lib/search/document-reader.ts), for the long builds of the background indexer and the benches.
   */
  sync(opts?: SyncOptions): Promise<{ indexed: number; pending: number }>;
  /** Removes the documents of the selected traces (inside the caller's transaction). */
  remove(selection: TraceSelection): Promise<void>;
}

/** What keeps the search index in step with the store (one per engine: indexer-sqlite.ts, indexer-postgres.ts). */
import type { TraceSelection } from "@/lib/db/typed-sql";

export interface SearchIndexer {
  /** Indexes what is missing; stops after `budgetMs` (the rest waits for the next call). */
  sync(opts?: { budgetMs?: number }): Promise<{ indexed: number; pending: number }>;
  /** Removes the documents of the selected traces (inside the caller's transaction). */
  remove(selection: TraceSelection): Promise<void>;
}

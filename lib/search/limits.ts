/** The search index's limits and layout, shared by its two indexers. */
import { positiveNumber } from "@/lib/config/env";

/** Rowids per trace: the question, final SQL and gold SQL, then steps 0 … SPAN − 4 (later steps are not indexed). */
export const SEARCH_SPAN = 2 ** 20;
export function searchLimits() {
  return {
    maxChars: positiveNumber("METRON_SEARCH_MAX_CHARS", 4000),
    /** Matching documents read per search before grouping by trace. */
    maxDocs: positiveNumber("METRON_SEARCH_MAX_DOCS", 5000),
  };
}

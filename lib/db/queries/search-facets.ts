import type { Db } from "@/lib/db/client";

/** The values the search page's filters offer: datasets, systems, models, tools, labels in use. */
export function listSearchFacets(db: Db) {
  const col = (sql: string) => (db.$client.prepare(sql).all() as { v: string }[]).map((r) => r.v);
  return {
    datasets: col("SELECT DISTINCT dataset_id AS v FROM runs WHERE dataset_id IS NOT NULL ORDER BY 1"),
    systems: col("SELECT DISTINCT system AS v FROM runs ORDER BY 1"),
    models: col("SELECT DISTINCT model AS v FROM runs ORDER BY 1"),
    tools: col("SELECT DISTINCT tool AS v FROM run_tool_counts ORDER BY 1"),
    labels: col("SELECT DISTINCT label AS v FROM labels ORDER BY 1"),
  };
}

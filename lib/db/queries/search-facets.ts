import type { Sql } from "@/lib/db/sql";

/** The values the search page's filters offer: datasets, systems, models, tools, labels in use. */
export async function listSearchFacets(sql: Sql) {
  const col = async (column: string, table: string) =>
    (
      await sql.all<{ v: string }>(
        `SELECT ${column} AS v FROM ${table} WHERE ${column} IS NOT NULL GROUP BY ${column} ORDER BY ${sql.d.binary(column)}`,
      )
    ).map((r) => r.v);
  return {
    datasets: await col("dataset_id", "runs"),
    systems: await col("system", "runs"),
    models: await col("model", "runs"),
    tools: await col("tool", "run_tool_counts"),
    labels: await col("label", "labels"),
  };
}

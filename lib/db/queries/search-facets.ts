import type { Sql } from "@/lib/db/sql";
import { binary, many, qb } from "@/lib/db/typed";

/** The values the search page's filters offer: datasets, systems, models, tools, labels in use. */
export async function listSearchFacets(sql: Sql) {
  const q = qb(sql);
  const values = async (rows: Promise<{ v: string | null }[]>) => (await rows).map((r) => r.v as string);
  const [datasets, systems, models, tools, labels] = await Promise.all([
    values(
      many(
        sql,
        q
          .selectFrom("runs")
          .select("dataset_id as v")
          .where("dataset_id", "is not", null)
          .groupBy("dataset_id")
          .orderBy(binary(sql, "dataset_id")),
      ),
    ),
    values(many(sql, q.selectFrom("runs").select("system as v").groupBy("system").orderBy(binary(sql, "system")))),
    values(many(sql, q.selectFrom("runs").select("model as v").groupBy("model").orderBy(binary(sql, "model")))),
    values(many(sql, q.selectFrom("run_tool_counts").select("tool as v").groupBy("tool").orderBy(binary(sql, "tool")))),
    values(many(sql, q.selectFrom("labels").select("label as v").groupBy("label").orderBy(binary(sql, "label")))),
  ]);
  return { datasets, systems, models, tools, labels };
}

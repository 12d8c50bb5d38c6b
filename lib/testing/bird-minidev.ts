/** Imports the real BIRD mini-dev dataset (../shared/data: questions, DDL, descriptions) into a test store. */
import { importDataset } from "@/lib/datasets/import-dataset";
import type { Db } from "@/lib/db/client";
import { asSql, type Sql } from "@/lib/db/sql";
import { sharedData } from "./shared-data";

export function importBirdMiniDev(store: { db: Db; dir: string } | { sql: Sql; dir: string }, name = "bird") {
  return importDataset(
    "sql" in store ? store.sql : asSql(store.db.$client),
    {
      name,
      format: "bird",
      questions: sharedData("bird-minidev", "mini_dev_sqlite.dev-split.json"),
      ddl: sharedData("bird-minidev", "schema-ddl"),
      descriptions: sharedData("bird-minidev", "descriptions"),
    },
    store.dir,
  );
}

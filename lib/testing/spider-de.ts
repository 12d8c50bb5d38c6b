/** Imports the real Spider-de dataset (../shared/data) into a test store, as `metron dataset import` would. */
import { importDataset } from "@/lib/datasets/import-dataset";
import type { Db } from "@/lib/db/client";
import { asSql, type Sql } from "@/lib/db/sql";
import { sharedData } from "./shared-data";

export function importSpiderDe(store: { db: Db; dir: string } | { sql: Sql; dir: string }) {
  return importDataset(
    "sql" in store ? store.sql : asSql(store.db.$client),
    {
      name: "spider-de",
      format: "spider",
      questions: sharedData("spider-de", "dev.json"),
      databases: sharedData("spider-de", "database"),
    },
    store.dir,
  );
}

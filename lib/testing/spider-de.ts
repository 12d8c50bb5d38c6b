/** Imports the real Spider-de dataset (../shared/data) into a test store, as `metron dataset import` would. */
import { importDataset } from "@/lib/datasets/import-dataset";
import type { Db } from "@/lib/db/client";
import { sharedData } from "./shared-data";

export function importSpiderDe(store: { db: Db; dir: string }) {
  return importDataset(
    store.db,
    {
      name: "spider-de",
      format: "spider",
      questions: sharedData("spider-de", "dev.json"),
      databases: sharedData("spider-de", "database"),
    },
    store.dir,
  );
}

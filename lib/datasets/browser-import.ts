/**
 * Dataset import from the browser: each file is uploaded on its own (streamed to disk, see lib/ingest/receive.ts)
 * into a folder laid out as the CLI expects — `questions/`, `databases/<db_id>/<db_id>.sqlite`, `tables.json`,
 * `ddl/<db_id>.sql`, `descriptions/<db_id>/<table>.csv`, `gold/<id>.sql` — kept beside the store, since registered
 * databases are read in place; then `importDataset` runs on that folder, exactly as `metron dataset import` does.
 */
import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { dataDir } from "@/lib/db/client";

export const fileKinds = ["questions", "sqlite", "tables", "ddl", "descriptions", "gold"] as const;
export type FileKind = (typeof fileKinds)[number];

export class DatasetUploadError extends Error {}

const SAFE = /^[\p{L}\p{N}_.\- ]+$/u;

export function uploadFolder(uploadId: string): string {
  if (!/^[0-9a-f-]{8,36}$/.test(uploadId))
    throw new DatasetUploadError("upload ids are the hex ids the import form makes");
  return path.join(dataDir(), "dataset-uploads", uploadId);
}

/** Where an uploaded file goes, from its kind and its name (or, for descriptions, its path in the chosen folder). */
export function destinationOf(uploadId: string, kind: FileKind, name: string): string {
  const parts = name.split(/[\\/]/).filter(Boolean);
  if (parts.length === 0 || parts.some((p) => p === ".." || !SAFE.test(p)))
    throw new DatasetUploadError(`unsafe file name "${name}"`);
  const base = parts[parts.length - 1];
  const root = uploadFolder(uploadId);
  switch (kind) {
    case "questions":
      return path.join(root, "questions", base);
    case "tables":
      return path.join(root, "tables.json");
    case "ddl":
      return path.join(root, "ddl", base);
    case "gold":
      return path.join(root, "gold", base);
    case "sqlite": {
      const dbId = base.replace(/\.(sqlite3?|db)$/i, "");
      if (dbId === base)
        throw new DatasetUploadError(
          `${base}: a database file ends in .sqlite, .sqlite3 or .db (its name is the db_id)`,
        );
      return path.join(root, "databases", dbId, `${dbId}.sqlite`);
    }
    case "descriptions": {
      // <db_id>/<table>.csv, possibly under a chosen top folder (and BIRD's database_description/).
      const tail = parts.filter((p) => p !== "database_description").slice(-2);
      if (tail.length < 2 || !/\.csv$/i.test(tail[1]))
        throw new DatasetUploadError(
          `${name}: description files are <db_id>/<table>.csv (choose the folder that holds the db_id folders)`,
        );
      return path.join(root, "descriptions", tail[0], tail[1]);
    }
  }
}

/** The import options for an uploaded folder, or an error naming what is missing. */
export function importPaths(uploadId: string): {
  questions: string;
  databases?: string;
  tables?: string;
  ddl?: string;
  descriptions?: string;
  gold?: string;
} {
  const root = uploadFolder(uploadId);
  const q = path.join(root, "questions");
  const questions = existsSync(q) ? readdirSync(q) : [];
  if (questions.length !== 1)
    throw new DatasetUploadError(questions.length ? "upload one question file" : "no question file was uploaded");
  const has = (p: string) => existsSync(path.join(root, p));
  const sources = ["databases", "tables.json", "ddl"].filter(has);
  if (sources.length !== 1)
    throw new DatasetUploadError(
      sources.length
        ? "give one kind of databases: .sqlite files, a tables.json, or DDL files"
        : "no databases were uploaded: .sqlite files, a tables.json, or DDL files",
    );
  return {
    questions: path.join(q, questions[0]),
    ...(has("databases") ? { databases: path.join(root, "databases") } : {}),
    ...(has("tables.json") ? { tables: path.join(root, "tables.json") } : {}),
    ...(has("ddl") ? { ddl: path.join(root, "ddl") } : {}),
    ...(has("descriptions") ? { descriptions: path.join(root, "descriptions") } : {}),
    ...(has("gold") ? { gold: path.join(root, "gold") } : {}),
  };
}

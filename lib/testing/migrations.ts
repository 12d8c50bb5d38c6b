/** Migration folders as an older Metron had them, for tests of a store upgraded by a later migration. */
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";

/** A copy of a migrations folder whose journal stops before `tag` (the caller removes the folder). */
export function foldersBefore(folder: string, tag: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "metron-migrations-"));
  cpSync(folder, dir, { recursive: true });
  const journal = path.join(dir, "meta", "_journal.json");
  const j = JSON.parse(readFileSync(journal, "utf8")) as { entries: { tag: string }[] };
  const at = j.entries.findIndex((e) => e.tag === tag);
  if (at <= 0) throw new Error(`${tag} is not a later migration in ${folder}`);
  j.entries = j.entries.slice(0, at);
  writeFileSync(journal, JSON.stringify(j));
  return dir;
}

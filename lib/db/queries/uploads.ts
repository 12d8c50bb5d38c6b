import { decoded } from "@/lib/db/typed";
import { uploads } from "@/lib/db/schema";
import type { Sql } from "@/lib/db/sql";
import { many, qb } from "@/lib/db/typed";

export function listUploadErrors(sql: Sql, uploadId: string): Promise<{ line: number; message: string }[]> {
  return many(
    sql,
    qb(sql).selectFrom("upload_errors").select(["line", "message"]).where("upload_id", "=", uploadId).orderBy("line"),
  );
}

export function getUpload(sql: Sql, id: string) {
  return decoded(sql, uploads, qb(sql).selectFrom("uploads").selectAll().where("id", "=", id));
}

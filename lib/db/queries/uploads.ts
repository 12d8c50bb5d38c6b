import { findRow } from "@/lib/db/rows";
import { uploads } from "@/lib/db/schema";
import type { Sql } from "@/lib/db/sql";

export async function listUploadErrors(sql: Sql, uploadId: string): Promise<{ line: number; message: string }[]> {
  return (await sql.all("SELECT line, message FROM upload_errors WHERE upload_id = ? ORDER BY line", [uploadId])) as {
    line: number;
    message: string;
  }[];
}

export function getUpload(sql: Sql, id: string) {
  return findRow(sql, uploads, "uploads", "id = ?", [id]);
}

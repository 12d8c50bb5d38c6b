import type { Db } from "@/lib/db/client";

export function listUploadErrors(db: Db, uploadId: string): { line: number; message: string }[] {
  return db.$client
    .prepare("SELECT line, message FROM upload_errors WHERE upload_id = ? ORDER BY line")
    .all(uploadId) as { line: number; message: string }[];
}

export function getUpload(db: Db, id: string) {
  return db.query.uploads.findFirst({ where: (u, { eq }) => eq(u.id, id) });
}

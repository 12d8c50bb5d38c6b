import { createReadStream } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { getSql } from "@/lib/db/store";
import { handler } from "@/lib/api/define";
import { writeParquet, type ParquetTable } from "@/lib/api/parquet";
import { ROUTES } from "@/lib/api/routes";

/** A table as Parquet (docs/notebooks.md): written to a temporary file a row group at a time, then streamed. */
export const GET = handler(ROUTES.exportTable, async ({ params, query }) => {
  const table = params.table.replace(/\.parquet$/, "") as ParquetTable;
  const dir = await mkdtemp(path.join(os.tmpdir(), "metron-parquet-"));
  const file = path.join(dir, `${table}.parquet`);
  try {
    await writeParquet(await getSql(), table, file, query.run);
  } catch (e) {
    await rm(dir, { recursive: true, force: true });
    throw e;
  }
  const stream = createReadStream(file);
  stream.on("close", () => void rm(dir, { recursive: true, force: true }));
  return new Response(Readable.toWeb(stream) as ReadableStream, {
    headers: {
      "Content-Type": "application/vnd.apache.parquet",
      "Content-Disposition": `attachment; filename="${table}.parquet"`,
    },
  });
});

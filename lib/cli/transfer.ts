/**
 * `metron export DIR [--json]` and `metron import DIR [--json]`: move a store (lib/db/transfer.ts); `metron export
 * --format parquet DIR [--run R]`: tables for pandas and DuckDB (lib/api/parquet.ts); `metron backup
 * FILE`: a consistent copy of the store through SQLite's online backup API, while others read and write.
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { openDb } from "@/lib/db/client";
import { openStore, postgresUrl } from "@/lib/db/store";
import { exportStore, importStore } from "@/lib/db/transfer";
import { UsageError } from "./args";
import { resolveRun } from "./run-commands";
import { computeViewsAhead } from "./views-ahead";

export async function runTransferCommand(command: "export" | "import" | "backup", argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: "boolean", default: false },
      format: { type: "string", default: "metron" },
      run: { type: "string" },
    },
  });
  if (positionals.length !== 1) throw new UsageError(`${command} ${command === "backup" ? "FILE" : "DIR"}`);
  const [dir] = positionals;
  if (command === "backup") {
    if (postgresUrl())
      throw new UsageError("backup copies the SQLite store; on PostgreSQL use pg_dump (docs/deployment.md)");
    if (existsSync(dir)) throw new UsageError(`${dir} exists: back up into a new file`);
    const db = openDb();
    try {
      const { totalPages } = await db.$client.backup(dir);
      console.log(
        values.json ? JSON.stringify({ file: dir, pages: totalPages }) : `backed up to ${dir} (${totalPages} pages)`,
      );
    } finally {
      db.$client.close();
    }
    return 0;
  }
  const sql = await openStore();
  try {
    if (command === "export" && values.format === "parquet") {
      // Tables for pandas and DuckDB (docs/notebooks.md), not a store to import.
      const { exportParquet } = await import("@/lib/api/parquet");
      const runId = values.run ? await resolveRun(sql, values.run) : undefined;
      const tables = await exportParquet(sql, dir, runId);
      if (values.json) console.log(JSON.stringify(tables, null, 2));
      else for (const t of tables) console.log(`${t.table}.parquet: ${t.rows} rows`);
      return 0;
    }
    if (values.format !== "metron") throw new UsageError("--format is metron (a store to import) or parquet");
    if (command === "export") {
      const manifest = await exportStore(sql, dir);
      if (values.json) console.log(JSON.stringify(manifest, null, 2));
      else {
        for (const t of manifest.tables) console.log(`${t.name}: ${t.rows} rows`);
        console.log(`exported ${sql.name} to ${dir} (manifest.json holds the counts and SHA-256 sums)`);
      }
    } else {
      const report = await importStore(sql, dir);
      if (values.json) console.log(JSON.stringify(report, null, 2));
      else {
        for (const t of report.tables) console.log(`${t.name}: ${t.rows} rows`);
        console.log(`imported into ${sql.name}; every count and SHA-256 sum matched the manifest`);
        for (const f of report.missing_database_files)
          console.log(`warning: the store refers to ${f}, which is not on this machine (copy it to the same path)`);
      }
      // An export leaves the derived data out (it belongs to the code that computed it): computed here once.
      await computeViewsAhead(sql, "all", values.json!);
    }
    return 0;
  } finally {
    await sql.close();
  }
}

import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { openStore } from "@/lib/db/store";
import { ingestFile } from "@/lib/ingest/ingest-file";
import { checkpointsSettled } from "@/lib/ingest/in-worker";
import type { AutoReport } from "@/lib/ingest/ingest-auto";
import { count, describeLinks } from "@/lib/text/count";
import { FORMATS } from "@/lib/trace/adapters";
import { UsageError } from "./args";
import { readFileSync } from "node:fs";
import { parseRoleMap } from "@/lib/sql/role-map";
import { computeViewsAhead } from "./views-ahead";

function parseRoles(file: string) {
  const r = parseRoleMap(readFileSync(file, "utf8"));
  if (!r.ok) throw new UsageError(`--roles ${file}: ${r.error}`);
  return r.roles;
}

export async function runIngestCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      run: { type: "string" },
      system: { type: "string" },
      model: { type: "string" },
      benchmark: { type: "string" },
      dataset: { type: "string" },
      roles: { type: "string" },
      format: { type: "string", default: "auto" },
      question: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  if (positionals.length === 0) throw new UsageError("ingest needs at least one FILE");
  for (const file of positionals) if (!existsSync(file)) throw new Error(`no such file: ${file}`); // not a misuse: no usage text
  const toolRoles = values.roles ? parseRoles(values.roles) : undefined;
  const sql = await openStore();
  const defaults = { name: values.run, system: values.system, model: values.model, benchmark: values.benchmark };
  if (values.format !== "auto" && !(FORMATS as readonly string[]).includes(values.format!))
    throw new UsageError(`--format must be auto or one of ${FORMATS.join(", ")}`);
  const reports: (AutoReport & { file: string })[] = [];
  for (const file of positionals) {
    const report = await ingestFile(sql, file, {
      defaults,
      source: "cli",
      dataset: values.dataset,
      toolRoles,
      format: values.format,
      questionId: values.question,
    });
    reports.push({ file, ...report });
    if (!values.json) printReport(file, report);
  }
  await computeViewsAhead(
    sql,
    reports.flatMap((r) => r.runs.map((run) => run.id)),
    values.json,
  );
  // The uploads' checkpoints ran beside the views (in-worker.ts `checkpointAfter`): the store file holds them on exit.
  await checkpointsSettled();
  await sql.close();
  if (values.json) console.log(JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2));
  return 0;
}

function printReport(file: string, r: AutoReport) {
  console.log(
    `${file} [${r.format}]: ${r.inserted} inserted, ${count(r.duplicates, "duplicate")}, ${count(r.error_count, "error")} (${count(r.lines, "line")}, ${(r.bytes / 1e6).toFixed(1)} MB)`,
  );
  for (const w of r.warnings.slice(0, 20)) console.log(`  warning, line ${w.line}: ${w.message}`);
  const links = describeLinks(r.links);
  if (links.linked) console.log(`  ${links.linked.replace(/^Questions/, "questions")}`);
  if (links.unlinked) console.log(`  ${links.unlinked}`);
  for (const run of r.runs) {
    console.log(`  run ${run.id}  ${run.name} · ${run.system} · ${run.model}`);
    if (run.notice) console.log(`    ${run.notice}`);
    const said = run.unknown.filter((f) => f !== "dataset");
    if (said.length)
      console.log(
        `    the file does not say its ${said.join(" or ")}: metron run edit ${run.id}${said.map((f) => ` --${f} …`).join("")}`,
      );
  }
  for (const e of r.errors.slice(0, 20)) console.log(`  line ${e.line}: ${e.message}`);
  if (r.error_count > 20) console.log(`  … ${r.error_count - 20} more errors (all stored with upload ${r.upload_id})`);
}

import { readFileSync } from "node:fs";
import { openStore } from "@/lib/db/store";
import { count, countN, qb } from "@/lib/db/typed";
import { parseArgs } from "node:util";
import { archiveRun, CurationError, editRun, linkRunDataset, parseRoles, setRunRoles } from "@/lib/ingest/curate";
import { promoteTrace } from "@/lib/ingest/promote";
import { deleteRun } from "@/lib/ingest/remove";
import { UsageError } from "./args";
import { computeViewsAhead } from "./views-ahead";
import { resolveRun } from "./run-commands";

/** `metron run edit|archive|unarchive|delete RUN …`: the browser's run curation, from the command line. */
export async function runRunCommand(argv: string[]): Promise<number> {
  const [sub, ref, ...rest] = argv;
  if (sub === "promote") return promote(ref, rest);
  if (!sub || !["edit", "archive", "unarchive", "delete"].includes(sub))
    throw new UsageError(`unknown run command "${sub ?? ""}" (try: run edit|archive|unarchive|delete RUN)`);
  if (!ref) throw new UsageError(`run ${sub} needs a run id or name`);
  const { values } = parseArgs({
    args: rest,
    options: {
      name: { type: "string" },
      system: { type: "string" },
      model: { type: "string" },
      dataset: { type: "string" },
      roles: { type: "string" },
      tags: { type: "string" },
      description: { type: "string" },
      yes: { type: "boolean", default: false },
      json: { type: "boolean", default: false },
    },
  });
  const sql = await openStore();
  const sqlite = sql;
  try {
    const runId = await resolveRun(sqlite, ref);
    const out: Record<string, unknown> = { run_id: runId };
    if (sub === "archive" || sub === "unarchive") {
      await archiveRun(sqlite, runId, sub === "archive", "cli");
      out.archived = sub === "archive";
    } else if (sub === "delete") {
      const traces = await count(sql, qb(sql).selectFrom("traces").select(countN).where("run_id", "=", runId));
      if (!values.yes)
        throw new UsageError(`run delete removes the run and its ${traces} traces for good: add --yes to confirm`);
      out.deleted = await deleteRun(sqlite, runId);
    } else {
      out.changes = await editRun(
        sqlite,
        runId,
        {
          name: values.name,
          system: values.system,
          model: values.model,
          description: values.description,
          tags: values.tags?.split(","),
        },
        "cli",
      );
      if (values.dataset !== undefined)
        out.dataset = await linkRunDataset(
          sqlite,
          runId,
          values.dataset === "none" || values.dataset === "" ? null : values.dataset,
          "cli",
        );
      if (values.roles !== undefined)
        out.roles = await setRunRoles(sqlite, runId, parseRoles(JSON.parse(readFileSync(values.roles, "utf8"))), "cli");
    }
    // The edit moved the run's version (and an unarchived run's views were left to its first view): its pages'
    // views computed now, as after an ingest. An archived or deleted run has none to compute.
    if (sub === "edit" || sub === "unarchive") await computeViewsAhead(sql, [runId], values.json);
    if (values.json) console.log(JSON.stringify(out, null, 2));
    else
      console.log(
        Object.entries(out)
          .map(([k, v]) => `${k}: ${typeof v === "object" ? JSON.stringify(v) : v}`)
          .join("\n"),
      );
    return 0;
  } finally {
    await sql.close();
  }
}

/** `metron run promote TRACE --into NAME`: a rerun's trace into a run of its own system and model. */
async function promote(traceId: string | undefined, argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: { into: { type: "string" }, json: { type: "boolean", default: false } },
  });
  if (!traceId || !values.into) throw new UsageError("run promote TRACE --into RUN_NAME");
  const sql = await openStore();
  try {
    const r = await promoteTrace(sql, traceId, values.into, "cli");
    console.log(
      values.json ? JSON.stringify({ run_id: r.runId, sample: r.sample }) : `run ${r.runId}, sample ${r.sample}`,
    );
    return 0;
  } catch (e) {
    if (e instanceof CurationError) throw new UsageError(e.message);
    throw e;
  } finally {
    await sql.close();
  }
}

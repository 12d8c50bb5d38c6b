/**
 * `metron label set|unset TRACE LABEL [--step N]`, `metron label note TRACE TEXT [--step N]`,
 * `metron label list [--run R] [--json]`, `metron label export [--run R]` (JSONL on stdout),
 * `metron label import FILE [--json]` (merge a team's triage), `metron label cause --run R LABEL` (a run's own cause).
 */
import { count } from "@/lib/text/count";
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { openStore } from "@/lib/db/store";
import { addRunCause, exportLabels, importLabels, LabelError, setLabel, setNote } from "@/lib/labels/labels";
import { UsageError } from "./args";
import { resolveRun } from "./run-commands";

export async function runLabelCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { step: { type: "string" }, run: { type: "string" }, json: { type: "boolean", default: false } },
  });
  const seq = values.step === undefined ? undefined : Number(values.step);
  if (seq !== undefined && !(Number.isInteger(seq) && seq >= 0)) throw new UsageError("--step must be a step number");
  const sql = await openStore();
  const sqlite = sql;
  try {
    const runId = values.run ? await resolveRun(sqlite, values.run) : undefined;
    switch (sub) {
      case "set":
      case "unset":
      case "note": {
        const [traceId, ...text] = positionals;
        if (!traceId || !text.length) throw new UsageError(`label ${sub} TRACE ${sub === "note" ? "TEXT" : "LABEL"}`);
        if (sub === "note") await setNote(sqlite, traceId, text.join(" "), { seq, who: "cli" });
        else await setLabel(sqlite, traceId, text.join(" "), { seq, on: sub === "set", who: "cli" });
        return 0;
      }
      case "cause": {
        // A failure cause of a run's own, offered beside the preset ones on its question pages.
        if (!runId || !positionals.length) throw new UsageError("label cause --run R LABEL");
        await addRunCause(sqlite, runId, positionals.join(" "));
        return 0;
      }
      case "export":
        for (const line of await exportLabels(sqlite, runId)) console.log(line);
        return 0;
      case "list": {
        const rows = (await exportLabels(sqlite, runId)).map((l) => JSON.parse(l) as Record<string, unknown>);
        if (values.json) console.log(JSON.stringify(rows, null, 2));
        else
          for (const r of rows)
            console.log(
              `${r.run_name} · question ${r.question_id}#${r.sample}${Number(r.seq) >= 0 ? ` step ${r.seq}` : ""}: ${r.label ?? `note: ${r.note}`} (${r.who}, ${r.at})`,
            );
        return 0;
      }
      case "import": {
        if (positionals.length !== 1) throw new UsageError("label import FILE");
        const report = await importLabels(sqlite, readFileSync(positionals[0], "utf8").split("\n"));
        console.log(
          values.json
            ? JSON.stringify(report, null, 2)
            : `${count(report.labels, "label")} and ${count(report.notes, "note")} added; ${count(report.unknownTraces, "line")} for traces this store lacks; ${count(report.errors.length, "bad line")}${report.errors.map((e) => `\n  line ${e.line}: ${e.message}`).join("")}`,
        );
        return report.errors.length ? 1 : 0;
      }
      default:
        throw new UsageError("label set|unset|note|cause|list|export|import");
    }
  } catch (e) {
    if (e instanceof LabelError) throw new UsageError(e.message);
    throw e;
  } finally {
    await sqlite.close();
  }
}

/**
 * `metron score set TRACE NAME VALUE [--step N] [--source S] [--comment C]`, `metron score import FILE [--json]`
 * (JSONL, idempotent by trace identity), `metron score export [--run R]` (JSONL on stdout), `metron score list --run
 * R [--json]` (each score of the run summarized: mean and 95 % interval, or shares). docs/scores.md.
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { openStore } from "@/lib/db/store";
import { exportScores, importScores, parseScoreValue, setScores, summarizeRunScores } from "@/lib/scores/scores";
import { count } from "@/lib/text/count";
import { hasInterval, noInterval } from "@/lib/metrics/stats";
import { UsageError } from "./args";
import { resolveRun } from "./run-commands";

export async function runScoreCommand(argv: string[]): Promise<number> {
  const [sub, ...rest] = argv;
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: {
      step: { type: "string" },
      source: { type: "string", default: "cli" },
      comment: { type: "string" },
      run: { type: "string" },
      json: { type: "boolean", default: false },
    },
  });
  const sql = await openStore();
  try {
    switch (sub) {
      case "set": {
        const [traceId, name, value] = positionals;
        if (!traceId || !name || value === undefined) throw new UsageError("score set TRACE NAME VALUE");
        const seq = values.step === undefined ? -1 : Number(values.step);
        const r = await setScores(sql, [
          {
            trace_id: traceId,
            seq,
            name,
            value: parseScoreValue(value),
            source: values.source,
            comment: values.comment,
          },
        ]);
        if (r.errors.length) throw new UsageError(r.errors.map((e) => e.message).join("; "));
        return 0;
      }
      case "import": {
        if (positionals.length !== 1) throw new UsageError("score import FILE");
        const r = await importScores(sql, readFileSync(positionals[0], "utf8").split("\n"), values.source);
        console.log(
          values.json
            ? JSON.stringify(r, null, 2)
            : `${count(r.stored, "score")} stored; ${count(r.unknown_traces, "score")} for traces this store lacks; ${count(r.errors.length, "line")} refused${r.errors.map((e) => `\n  line ${e.index}: ${e.message}`).join("")}`,
        );
        return r.errors.length ? 1 : 0;
      }
      case "export": {
        const runId = values.run ? await resolveRun(sql, values.run) : undefined;
        for (const line of await exportScores(sql, runId)) console.log(line);
        return 0;
      }
      case "list": {
        if (!values.run) throw new UsageError("score list --run R");
        const summaries = await summarizeRunScores(sql, [await resolveRun(sql, values.run)]);
        if (values.json) console.log(JSON.stringify(summaries, null, 2));
        else
          for (const s of summaries)
            console.log(
              s.mean
                ? `${s.name} (${s.kind}, ${count(s.n, "trace")}): ${s.mean.estimate.toFixed(4)} ${hasInterval(s.mean) ? `[${s.mean.low.toFixed(4)}, ${s.mean.high.toFixed(4)}]` : `(${noInterval(s.mean)})`}`
                : `${s.name} (categorical, ${count(s.n, "trace")}): ${s.shares!.map((c) => `${c.category} ${(c.share * 100).toFixed(1)}%`).join(", ")}`,
            );
        return 0;
      }
      default:
        throw new UsageError("score set|import|export|list");
    }
  } finally {
    await sql.close();
  }
}

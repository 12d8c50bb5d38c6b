/** `metron search "QUERY" [--limit N] [--json]`: full-text search over the stored traces (docs/search.md). */
import { count } from "@/lib/text/count";
import { parseArgs } from "node:util";
import { openStore } from "@/lib/db/store";
import { MARK_END, MARK_START, searchTraces } from "@/lib/search";
import { UsageError } from "./args";

export async function runSearchCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { limit: { type: "string", default: "20" }, json: { type: "boolean", default: false } },
  });
  const q = positionals.join(" ").trim();
  if (!q) throw new UsageError('give a query: metron search "describe_table table:frpm outcome:wrong"');
  const limit = Number(values.limit);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError("--limit must be a positive integer");
  const sql = await openStore();
  try {
    const r = await searchTraces(sql, q, { limit, readAhead: true });
    if (values.json) {
      const plain = (s: string) => s.replaceAll(MARK_START, "[").replaceAll(MARK_END, "]");
      console.log(
        JSON.stringify(
          {
            total: r.total,
            capped: r.capped,
            not_understood: r.query.unknown,
            hits: r.hits.map((h) => ({
              trace_id: h.traceId,
              run_id: h.runId,
              run: h.runName,
              system: h.system,
              model: h.model,
              simulated: h.simulated,
              question_id: h.questionId,
              sample: h.sample,
              outcome: h.exOutcome,
              correct: h.correct === null ? null : h.correct === 1,
              labels: h.labels,
              snippets: h.snippets.map((s) => ({ step: s.seq, field: s.field, text: plain(s.text) })),
            })),
          },
          null,
          2,
        ),
      );
      return 0;
    }
    if (r.query.unknown.length) console.error(`not understood, left out: ${r.query.unknown.join("; ")}`);
    console.log(`${count(r.total, "trace")}${r.capped ? " (at least)" : ""}`);
    for (const h of r.hits) {
      console.log(
        `${h.runName} · ${h.system} · ${h.model}${h.simulated ? " (simulated)" : ""} · question ${h.questionId}#${h.sample} (${outcomeText(h)})`,
      );
      for (const s of h.snippets)
        console.log(
          `  ${s.seq === null ? s.field : `step ${s.seq}`}: ${s.text.replaceAll(MARK_START, "«").replaceAll(MARK_END, "»")}`,
        );
    }
  } finally {
    await sql.close();
  }
  return 0;
}

/** As the pages say it: the re-evaluated outcome, else the one recorded in the trace (and that it is), else neither. */
function outcomeText(h: { exOutcome: string | null; correct: number | null }): string {
  if (h.exOutcome) return h.exOutcome;
  if (h.correct !== null) return `${h.correct ? "correct" : "wrong"} (recorded)`;
  return "not evaluated";
}

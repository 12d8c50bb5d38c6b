/**
 * Recomputes the stored per-trace metrics of a run from its stored steps: after a dataset is imported or
 * re-imported, a run's tool → role mapping changes, or the prices change. Nothing is lost: traces and steps
 * stay as uploaded; only the derived columns are rewritten, in one transaction per run.
 */
import type { Param, Sql } from "@/lib/db/sql";
import { UPSERT_TOOL_COUNT } from "./upload-writer";
import {
  openLookups,
  MEASURED_COLUMNS,
  measuredValues,
  TraceMeasurer,
  ToolCounter,
  mergeRoles,
  type MeasurableTrace,
} from "./measure";
import { loadPrices } from "./prices-file";

interface TraceRow {
  id: string;
  question_id: string;
  db_id: string | null;
  gold_sql: string | null;
  final_sql: string | null;
  directives: string | null;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
}

export async function recomputeRun(sql: Sql, runId: string): Promise<{ traces: number }> {
  const run = await sql.get<{
    id: string;
    model: string;
    benchmark: string | null;
    datasetId: string | null;
    roles: string | null;
  }>("SELECT id, model, benchmark, dataset_id AS datasetId, tool_roles AS roles FROM runs WHERE id = ?", [runId]);
  if (!run) throw new Error(`no run ${runId}`);
  const lookups = await openLookups(sql);
  await lookups.prime(run.datasetId ?? run.benchmark);
  // Measured again against the run's link, never its benchmark's name: an unlinked run has no gold (issue 30).
  const measurer = new TraceMeasurer(lookups, loadPrices(), run.datasetId);
  const roles = mergeRoles(run.roles ? JSON.parse(run.roles) : null);
  const traces = await sql.all<TraceRow>(
    "SELECT id, question_id, db_id, gold_sql, final_sql, directives, input_tokens, output_tokens, cached_input_tokens FROM traces WHERE run_id = ?",
    [runId],
  );
  const updateTrace = `UPDATE traces SET ${MEASURED_COLUMNS.map((c) => `${c} = ?`).join(", ")},
    db_id = coalesce(db_id, ?), question_text = coalesce(question_text, ?), evidence = coalesce(evidence, ?), gold_sql = coalesce(gold_sql, ?), difficulty = coalesce(difficulty, ?)
    WHERE id = ?`;
  const updateStep =
    "UPDATE steps SET tool_role = ?, tables = ?, exploratory = ?, empty_result = ?, refines = ? WHERE trace_id = ? AND seq = ?";
  const tools = new ToolCounter();
  try {
    await sql.transaction(async (tx) => {
      await tx.run("DELETE FROM run_tool_counts WHERE run_id = ?", [runId]);
      for (const t of traces) {
        const steps = await tx.all<{
          seq: number;
          type: string;
          tool: string | null;
          args: string | null;
          empty: number | null;
        }>("SELECT seq, type, tool, args, empty_result AS empty FROM steps WHERE trace_id = ? ORDER BY seq", [t.id]);
        const trace: MeasurableTrace = {
          run: { benchmark: run.benchmark ?? undefined, model: run.model },
          question: { id: t.question_id, db_id: t.db_id ?? undefined, gold_sql: t.gold_sql ?? undefined },
          final_sql: t.final_sql,
          directives: t.directives ? JSON.parse(t.directives) : undefined,
          usage: {
            input_tokens: t.input_tokens,
            output_tokens: t.output_tokens,
            cached_input_tokens: t.cached_input_tokens,
          },
          steps: steps.map((s) => ({
            type: s.type,
            tool: s.tool ?? undefined,
            args: s.args === null ? undefined : JSON.parse(s.args),
            empty: s.empty === null ? null : s.empty === 1,
          })),
        };
        const measurement = measurer.measure(trace, roles);
        const { steps: classes, question: dq, empty, probes } = measurement;
        tools.add(
          runId,
          classes.filter((c) => c !== null).map((c) => [c.tool, c.role]),
        );
        await tx.run(updateTrace, [
          ...(measuredValues(measurement) as Param[]),
          dq?.dbId ?? null,
          dq?.text ?? null,
          dq?.evidence ?? null,
          dq?.goldSql ?? null,
          dq?.difficulty ?? null,
          t.id,
        ]);
        for (let i = 0; i < steps.length; i++) {
          const s = steps[i];
          const c = classes[i];
          const refined = probes.refines[i];
          // A step that stopped being a probe (its role changed) keeps its stored emptiness for when it is one again.
          const e = empty[i] ?? (s.empty === null ? null : s.empty === 1);
          await tx.run(updateStep, [
            c?.role ?? null,
            c && c.tables.length ? JSON.stringify(c.tables) : null,
            c?.exploratory ? 1 : 0,
            e === null ? null : e ? 1 : 0,
            refined === null ? null : steps[refined].seq,
            t.id,
            s.seq,
          ]);
        }
      }
      for (const row of tools.drain()) await tx.run(UPSERT_TOOL_COUNT, row);
      await tx.run("UPDATE runs SET version = version + 1 WHERE id = ?", [runId]);
    });
  } finally {
    measurer.close();
  }
  return { traces: traces.length };
}
